/* affect's firmware for the Pololu Romi 32U4 control board: an I2C slave at address 20 with
 * the shared buffer of Pololu's RomiRPiSlaveDemo (slave.h), plus a motor timeout: when no
 * write has touched the motor speeds for MOTOR_TIMEOUT_MS, the board stops the motors by
 * itself. A Raspberry Pi that dies (a kernel panic, a brown-out on the shared battery, a
 * stuck bus) takes the run and its watchdog with it; only the board is left to stop the
 * wheels. affect's driver writes the speeds at every tick while a move is under way, and
 * the motors stand still otherwise, so a timeout a few tick periods long never cuts a move
 * short. docs/raspberry-pi.md tells how to build and flash it.
 *
 * Written from the board's documentation and the datasheet with plain avr-libc; no code of
 * Pololu's libraries is used (they are not in Debian). */
#include "board.h"
#include "buzzer.h"
#include "slave.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/wdt.h>
#include <stddef.h>

#ifndef MOTOR_TIMEOUT_MS
#define MOTOR_TIMEOUT_MS 300
#endif
#ifndef SLAVE_ADDRESS
#define SLAVE_ADDRESS 20
#endif

_Static_assert(MOTOR_TIMEOUT_MS >= 0 && MOTOR_TIMEOUT_MS <= 60000,
               "MOTOR_TIMEOUT_MS: 0 (never) up to 60000");

/* A watchdog reset leaves the watchdog running with its shortest period: turn it off before
 * anything else (avr-libc's advice), then start it for this firmware's own hangs. */
void early_wdt_off(void) __attribute__((naked, used, section(".init3")));
void early_wdt_off(void) {
    MCUSR = 0;
    wdt_disable();
}

#define FIELD(f) offsetof(struct romi_data, f)

int main(void) {
    board_init();
    buzzer_init();
    slave_init(SLAVE_ADDRESS);
    /* A hung loop resets the board, and a reset stops the motors (the pins float and the
     * motor drivers' inputs are pulled low). */
    wdt_enable(WDTO_250MS);
    sei();

    uint8_t playing = 0;
    for (;;) {
        wdt_reset();
        slave_expire_motors(board_millis(), MOTOR_TIMEOUT_MS);

        struct romi_data d;
        slave_snapshot(&d);

        uint8_t buttons[3];
        board_read_buttons(buttons);
        board_set_leds(d.yellow, d.green, d.red);
        board_set_motors(d.left_motor, d.right_motor);
        slave_update(FIELD(button_a), buttons, sizeof buttons);

        uint16_t mv = board_battery_millivolts();
        slave_update(FIELD(battery_millivolts), &mv, sizeof mv);
        uint16_t analog[6];
        for (uint8_t i = 0; i < 6; i++) analog[i] = board_analog(i);
        slave_update(FIELD(analog), analog, sizeof analog);

        /* A melody plays once per request; the flag drops when it has ended. */
        if (d.play_notes && !playing) {
            buzzer_play(d.notes, sizeof d.notes);
            playing = 1;
        } else if (playing && !buzzer_playing()) {
            uint8_t done = 0;
            slave_update(FIELD(play_notes), &done, 1);
            playing = 0;
        }
        buzzer_step(board_millis());

        int16_t enc[2];
        board_encoders(&enc[0], &enc[1]);
        slave_update(FIELD(left_encoder), enc, sizeof enc);
    }
}
