/* The buzzer (PD7) and the melodies the Pi asks for in the buffer's `notes`, in Pololu's
 * notation (PololuBuzzer's documented syntax, modelled on GW-BASIC's PLAY): notes A-G with
 * + # - after them, R for a rest, a length after a note (4 a quarter, 16 a sixteenth) and
 * dots, > and < before a note for one octave up or down, O octave, T tempo in beats a minute,
 * L default length, V volume 0-15, MS staccato, ML legato, ! back to the defaults (O4 T120 L4
 * V15 ML). Settings last from one melody to the next. Case and spaces do not matter. */
#ifndef ROMI_BUZZER_H
#define ROMI_BUZZER_H

#include <stdint.h>

void buzzer_init(void);

/* Starts a melody of at most `n` characters (it ends at a NUL before that). */
void buzzer_play(const char *notes, uint8_t n);

uint8_t buzzer_playing(void);

/* Moves the melody on: call it often (the main loop does, every few milliseconds). */
void buzzer_step(uint32_t now_ms);

#endif
