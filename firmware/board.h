/* The Romi 32U4 control board's parts, on an ATmega32U4 at 16 MHz. The pin assignments are
 * the board's (Pololu's Romi 32U4 schematic and user's guide). */
#ifndef ROMI_BOARD_H
#define ROMI_BOARD_H

#include <stdint.h>

/* The fastest speed the motors are given (of a 400-count PWM period). */
#define MOTOR_MAX_SPEED 300

/* Sets up the millisecond clock, motors, LEDs, buttons, ADC and encoders. */
void board_init(void);

/* Milliseconds since the start (wraps after 49 days; compare by subtraction). */
uint32_t board_millis(void);

/* Speeds -300..300 (clamped); negative is backwards. */
void board_set_motors(int16_t left, int16_t right);

void board_set_leds(uint8_t yellow, uint8_t green, uint8_t red);

/* Buttons A, B, C: 1 while pressed. B and C share their pins with the green and red LEDs,
 * which are restored afterwards. */
void board_read_buttons(uint8_t pressed[3]);

/* The analog inputs A0..A5 as Arduino numbers them, 0..1023. */
uint16_t board_analog(uint8_t input);

/* The battery voltage in millivolts (A1 reads it through a 1/3 divider), from 8 samples. */
uint16_t board_battery_millivolts(void);

/* The encoders' counts since the start (wrapping at the ends of int16_t). */
void board_encoders(int16_t *left, int16_t *right);

#endif
