/* The board's parts: each in a few registers (ATmega32U4 datasheet), no Arduino core. */
#include "board.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/delay.h>

/* Motors: Timer 1 in phase- and frequency-correct PWM with TOP = ICR1 = 400, which is
 * 16 MHz / (2 * 400) = 20 kHz, out of hearing. OC1B (PB6) drives the left motor, OC1A (PB5)
 * the right; PB2 and PB1 are their direction pins (high: backwards). */
#define PWM_TOP 400
#define LEFT_DIR PB2
#define RIGHT_DIR PB1

/* LEDs: yellow on PC7 (high: on), green on PD5 and red on PB0 (low: on). Buttons: A on PB3,
 * B on PD5, C on PB0, each pulling its pin low when pressed. */

/* Encoders: each wheel gives the XOR of its two channels on one pin (an interrupt) and its
 * channel B on another: left XOR on PB4 (PCINT4), B on PE2; right XOR on PE6 (INT6), B on
 * PF0. Channel A is the XOR with B. */

static volatile uint32_t millis;
static volatile int16_t left_count, right_count;
static uint8_t left_a, left_b, right_a, right_b;

ISR(TIMER0_COMPA_vect) {
    millis++;
}

uint32_t board_millis(void) {
    uint8_t sreg = SREG;
    cli();
    uint32_t t = millis;
    SREG = sreg;
    return t;
}

/* One quadrature transition, from channels (a0, b0) to (a1, b1): +1 forward, -1 back, 0 for
 * no change (or a skipped state, which cannot be told apart). */
static int8_t quadrature(uint8_t a0, uint8_t b0, uint8_t a1, uint8_t b1) {
    return (int8_t)((a0 ^ b1) - (a1 ^ b0));
}

ISR(PCINT0_vect) {
    uint8_t b = (PINE >> PE2) & 1;
    uint8_t a = ((PINB >> PB4) & 1) ^ b;
    left_count += quadrature(left_a, left_b, a, b);
    left_a = a;
    left_b = b;
}

ISR(INT6_vect) {
    uint8_t b = (PINF >> PF0) & 1;
    uint8_t a = ((PINE >> PE6) & 1) ^ b;
    right_count += quadrature(right_a, right_b, a, b);
    right_a = a;
    right_b = b;
}

void board_init(void) {
    /* 1 ms ticks: Timer 0 in CTC mode, 16 MHz / 64 / 250. */
    TCCR0A = 1 << WGM01;
    TCCR0B = (1 << CS01) | (1 << CS00);
    OCR0A = 249;
    TIMSK0 = 1 << OCIE0A;

    PORTB &= (uint8_t) ~((1 << PB5) | (1 << PB6) | (1 << LEFT_DIR) | (1 << RIGHT_DIR));
    DDRB |= (1 << PB5) | (1 << PB6) | (1 << LEFT_DIR) | (1 << RIGHT_DIR);
    OCR1A = 0;
    OCR1B = 0;
    ICR1 = PWM_TOP;
    TCCR1A = (1 << COM1A1) | (1 << COM1B1);
    TCCR1B = (1 << WGM13) | (1 << CS10);

    board_set_leds(0, 0, 0);
    DDRC |= 1 << PC7;
    DDRD |= 1 << PD5;
    DDRB |= 1 << PB0;
    DDRB &= (uint8_t) ~(1 << PB3);
    PORTB |= 1 << PB3;

    /* ADC: AVCC (5 V) reference, 16 MHz / 128 = 125 kHz conversion clock. */
    ADMUX = 1 << REFS0;
    ADCSRA = (1 << ADEN) | (1 << ADPS2) | (1 << ADPS1) | (1 << ADPS0);

    DDRB &= (uint8_t) ~(1 << PB4);
    PORTB |= 1 << PB4;
    DDRE &= (uint8_t) ~((1 << PE2) | (1 << PE6));
    PORTE |= (1 << PE2) | (1 << PE6);
    DDRF &= (uint8_t) ~(1 << PF0);
    PORTF |= 1 << PF0;
    left_b = (PINE >> PE2) & 1;
    left_a = ((PINB >> PB4) & 1) ^ left_b;
    right_b = (PINF >> PF0) & 1;
    right_a = ((PINE >> PE6) & 1) ^ right_b;
    PCMSK0 = 1 << PCINT4;
    PCIFR = 1 << PCIF0;
    PCICR = 1 << PCIE0;
    EICRB = 1 << ISC60; /* any change */
    EIFR = 1 << INTF6;
    EIMSK |= 1 << INT6;
}

static uint16_t speed_of(int16_t speed, uint8_t *backwards) {
    *backwards = speed < 0;
    int16_t s = speed < 0 ? -speed : speed;
    if (speed == INT16_MIN || s > MOTOR_MAX_SPEED) s = MOTOR_MAX_SPEED;
    return (uint16_t)s;
}

void board_set_motors(int16_t left, int16_t right) {
    uint8_t left_back, right_back;
    uint16_t l = speed_of(left, &left_back);
    uint16_t r = speed_of(right, &right_back);
    uint8_t sreg = SREG;
    cli(); /* 16-bit registers share one temporary byte */
    OCR1B = l;
    OCR1A = r;
    SREG = sreg;
    if (left_back) PORTB |= 1 << LEFT_DIR;
    else PORTB &= (uint8_t) ~(1 << LEFT_DIR);
    if (right_back) PORTB |= 1 << RIGHT_DIR;
    else PORTB &= (uint8_t) ~(1 << RIGHT_DIR);
}

void board_set_leds(uint8_t yellow, uint8_t green, uint8_t red) {
    if (yellow) PORTC |= 1 << PC7;
    else PORTC &= (uint8_t) ~(1 << PC7);
    if (green) PORTD &= (uint8_t) ~(1 << PD5);
    else PORTD |= 1 << PD5;
    if (red) PORTB &= (uint8_t) ~(1 << PB0);
    else PORTB |= 1 << PB0;
}

/* Reads a button on a pin that is otherwise an output: input with pull-up for a moment. */
static uint8_t borrowed_pressed(volatile uint8_t *ddr, volatile uint8_t *port,
                                volatile uint8_t *pin, uint8_t bit) {
    uint8_t sreg = SREG;
    cli();
    uint8_t d = *ddr, p = *port;
    *ddr = d & (uint8_t) ~(1 << bit);
    *port = p | (1 << bit);
    _delay_us(3);
    uint8_t pressed = !((*pin >> bit) & 1);
    *port = p;
    *ddr = d;
    SREG = sreg;
    return pressed;
}

void board_read_buttons(uint8_t pressed[3]) {
    pressed[0] = !((PINB >> PB3) & 1);
    pressed[1] = borrowed_pressed(&DDRD, &PORTD, &PIND, PD5);
    pressed[2] = borrowed_pressed(&DDRB, &PORTB, &PINB, PB0);
}

/* Arduino's A0..A5 on the ATmega32U4 are ADC7, ADC6, ADC5, ADC4, ADC1, ADC0. */
static const uint8_t adc_channel[6] = {7, 6, 5, 4, 1, 0};

uint16_t board_analog(uint8_t input) {
    if (input >= 6) return 0;
    ADMUX = (uint8_t)((1 << REFS0) | adc_channel[input]);
    ADCSRB &= (uint8_t) ~(1 << MUX5);
    ADCSRA |= 1 << ADSC;
    while (ADCSRA & (1 << ADSC)) {
    }
    return ADC;
}

uint16_t board_battery_millivolts(void) {
    uint16_t sum = 0;
    for (uint8_t i = 0; i < 8; i++) sum += board_analog(1);
    /* millivolts = 3 * raw * 5000 / 1024 = raw * 1875 / 128, rounded to nearest. */
    return (uint16_t)(((uint32_t)sum * 1875 + 4 * 128 - 1) / (8 * 128));
}

void board_encoders(int16_t *left, int16_t *right) {
    uint8_t sreg = SREG;
    cli();
    *left = left_count;
    *right = right_count;
    SREG = sreg;
}
