/* The I2C side of the firmware: the shared buffer the Raspberry Pi reads and writes, in the
 * layout of Pololu's RomiRPiSlaveDemo (`struct Data` of pololu-rpi-slave-arduino-library), so
 * that affect's driver (runtime/src/devices/romi32u4.rs) and Pololu's a_star.py work with
 * this firmware unchanged. */
#ifndef ROMI_SLAVE_H
#define ROMI_SLAVE_H

#include <stdint.h>

/* The buffer, packed as the AVR lays it out (little-endian, no padding): 43 bytes. */
struct romi_data {
    uint8_t yellow, green, red;          /*  0: LEDs, written by the Pi */
    uint8_t button_a, button_b, button_c; /*  3: buttons, written by the board */
    int16_t left_motor, right_motor;     /*  6: speeds -300..300, written by the Pi */
    uint16_t battery_millivolts;         /* 10 */
    uint16_t analog[6];                  /* 12: A0..A5, 0..1023 */
    uint8_t play_notes;                  /* 24: set by the Pi, cleared when played */
    char notes[14];                      /* 25 */
    int16_t left_encoder, right_encoder; /* 39 */
} __attribute__((packed));

_Static_assert(sizeof(struct romi_data) == 43, "the layout of RomiRPiSlaveDemo's struct Data");

#define ROMI_LEFT_MOTOR 6
#define ROMI_MOTORS_END 10

/* Listens at `address` (7-bit) with the TWI interrupt. */
void slave_init(uint8_t address);

/* A consistent copy of the buffer as the Pi last left it. */
void slave_snapshot(struct romi_data *out);

/* Writes `n` bytes of the board's own fields (buttons, sensors, encoders) at `offset`. */
void slave_update(uint8_t offset, const void *bytes, uint8_t n);

/* The motor timeout: when no write has touched the motor speeds for `timeout_ms` (0: never),
 * sets both speeds in the buffer to 0 and says so. Checked and cleared with interrupts off,
 * so a command that arrives meanwhile is never lost. */
uint8_t slave_expire_motors(uint32_t now_ms, uint16_t timeout_ms);

#endif
