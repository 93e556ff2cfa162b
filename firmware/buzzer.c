/* Tones on PD7 from Timer 3 (Timer 0 keeps time, Timer 1 drives the motors): CTC mode with
 * TOP = ICR3 at 2 MHz; the pin goes high at TOP and low at the OCR3A match, so OCR3A sets the
 * duty cycle, which is the volume (V15 is half the period, each step down halves it). */
#include "buzzer.h"

#include <avr/interrupt.h>
#include <avr/io.h>

#define MAX_NOTES 14

struct settings {
    uint8_t octave, volume, staccato;
    uint16_t tempo, length;
};

static const struct settings defaults = {4, 15, 0, 120, 4};
static struct settings set = {4, 15, 0, 120, 4};

static char melody[MAX_NOTES];
static uint8_t len, at, playing;
/* The sound stops at `quiet_at`; the next element starts at `next_at`. */
static uint32_t quiet_at, next_at;

/* Octave 4 in tenths of a hertz, C to B. */
static const uint16_t octave4[12] = {2616, 2772, 2937, 3111, 3296, 3492,
                                     3700, 3920, 4153, 4400, 4662, 4939};

ISR(TIMER3_CAPT_vect) {
    PORTD |= 1 << PD7;
}

ISR(TIMER3_COMPA_vect) {
    PORTD &= (uint8_t) ~(1 << PD7);
}

static void silence(void) {
    TCCR3B = 0;
    TIMSK3 = 0;
    PORTD &= (uint8_t) ~(1 << PD7);
}

/* Semitone 0..11 of `octave` (1..8). */
static void tone(uint8_t semitone, uint8_t octave, uint8_t volume) {
    if (volume == 0) {
        silence();
        return;
    }
    uint32_t decihertz = (uint32_t)octave4[semitone];
    if (octave >= 4) decihertz <<= (octave - 4);
    else decihertz >>= (4 - octave);
    uint32_t period = 20000000UL / decihertz; /* 2 MHz ticks */
    if (period > 65535) period = 65535;
    if (period < 2) period = 2;
    TCCR3B = 0;
    TCNT3 = 0;
    ICR3 = (uint16_t)(period - 1);
    uint16_t high = (uint16_t)(period >> (16 - (volume > 15 ? 15 : volume)));
    OCR3A = high ? high : 1;
    TCCR3A = 0;
    TIFR3 = (1 << ICF3) | (1 << OCF3A);
    TIMSK3 = (1 << ICIE3) | (1 << OCIE3A);
    TCCR3B = (1 << WGM33) | (1 << WGM32) | (1 << CS31); /* CTC to ICR3, clk / 8 */
}

void buzzer_init(void) {
    DDRD |= 1 << PD7;
    silence();
}

void buzzer_play(const char *notes, uint8_t n) {
    len = 0;
    while (len < n && len < MAX_NOTES && notes[len] != 0) {
        melody[len] = notes[len];
        len++;
    }
    at = 0;
    playing = 1;
    next_at = 0;
    quiet_at = 0;
}

uint8_t buzzer_playing(void) {
    return playing;
}

static char peek(void) {
    while (at < len && melody[at] == ' ') at++;
    if (at >= len) return 0;
    char c = melody[at];
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* A number of at most 2000 after the current position, or `fallback` when there is none. */
static uint16_t number(uint16_t fallback) {
    uint16_t v = 0;
    uint8_t any = 0;
    while (at < len && melody[at] >= '0' && melody[at] <= '9') {
        v = (uint16_t)(v * 10 + (melody[at] - '0'));
        if (v > 2000) v = 2000;
        any = 1;
        at++;
    }
    return any ? v : fallback;
}

/* The length after a note or rest, with its dots, in milliseconds. */
static uint32_t duration(void) {
    uint16_t n = number(set.length);
    if (n == 0) n = 1;
    uint32_t ms = 240000UL / ((uint32_t)set.tempo * n);
    uint32_t add = ms / 2;
    while (peek() == '.') {
        at++;
        ms += add;
        add /= 2;
    }
    return ms;
}

static const uint8_t semitone_of[7] = {9, 11, 0, 2, 4, 5, 7}; /* a b c d e f g */

/* Starts the next note or rest; returns 0 at the end of the melody. */
static uint8_t next_element(uint32_t now) {
    int8_t shift = 0;
    for (;;) {
        char c = peek();
        if (c == 0) return 0;
        at++;
        if (c == '!') {
            set = defaults;
        } else if (c == '>') {
            shift++;
        } else if (c == '<') {
            shift--;
        } else if (c == 'o') {
            uint16_t o = number(defaults.octave);
            set.octave = (uint8_t)(o > 8 ? 8 : o);
        } else if (c == 't') {
            uint16_t t = number(defaults.tempo);
            set.tempo = t ? t : 1;
        } else if (c == 'l') {
            uint16_t l = number(defaults.length);
            set.length = l ? l : 1;
        } else if (c == 'v') {
            uint16_t v = number(defaults.volume);
            set.volume = (uint8_t)(v > 15 ? 15 : v);
        } else if (c == 'm') {
            char m = peek();
            if (m == 's' || m == 'l') {
                set.staccato = m == 's';
                at++;
            }
        } else if (c == 'r') {
            silence();
            next_at = now + duration();
            quiet_at = now;
            return 1;
        } else if (c >= 'a' && c <= 'g') {
            int8_t semitone = (int8_t)semitone_of[c - 'a'];
            for (char a = peek(); a == '+' || a == '#' || a == '-'; a = peek()) {
                semitone += a == '-' ? -1 : 1;
                at++;
            }
            int8_t octave = (int8_t)(set.octave + shift);
            while (semitone < 0) {
                semitone += 12;
                octave--;
            }
            while (semitone > 11) {
                semitone -= 12;
                octave++;
            }
            if (octave < 1) octave = 1;
            if (octave > 8) octave = 8;
            uint32_t ms = duration();
            tone((uint8_t)semitone, (uint8_t)octave, set.volume);
            next_at = now + ms;
            quiet_at = set.staccato ? now + ms / 2 : next_at;
            return 1;
        }
        /* Anything else is skipped, as a space is. */
    }
}

void buzzer_step(uint32_t now_ms) {
    if (!playing) return;
    if ((int32_t)(now_ms - quiet_at) >= 0) silence();
    if ((int32_t)(now_ms - next_at) < 0) return;
    if (!next_element(now_ms)) {
        silence();
        playing = 0;
    }
}
