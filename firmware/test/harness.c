/* The firmware on a simulated ATmega32U4 (simavr), driven by commands on stdin, one answer
 * line on stdout per command; tests/firmware.rs speaks to it.
 *
 *   run MS                 let MS milliseconds of the board's time pass
 *   write OFFSET BYTE...   one I2C write transaction to address 20 ([OFFSET, BYTE...]), then
 *                          100 us (a_star.py's wait): "ack" or "nack"
 *   read OFFSET N          a write of [OFFSET], 100 us, then a read transaction of N bytes:
 *                          the bytes in hex, or "nack"
 *   readmore N             a read transaction alone (the offset goes on from the last one)
 *   motors                 the motor outputs, "LEFT RIGHT": the PWM compare values, negative
 *                          when the direction pin says backwards
 *   leds                   "YELLOW GREEN RED", 1 for lit
 *   tone                   the buzzer's frequency in hertz, 0 when silent
 *   adc CHANNEL MV         the voltage on an ADC input, in millivolts
 *   pin PORT BIT LEVEL     drive an input pin (pin B 3 0: button A pressed)
 *   quad left|right STEPS  turn an encoder by STEPS quadrature steps (negative: backwards)
 *   ms                     the board's time since the start, in milliseconds
 *
 * It says "ready" (after simavr's own lines) before the first command.
 * simavr 1.6's TWI model is a master's: as a slave it reports a STOP as an address match and
 * cannot send more than one byte, so this harness takes over the TWI registers and plays the
 * bus and the peripheral as the ATmega32U4 datasheet describes them (the TWINT interrupt with
 * a status code per event, the clock held low until the firmware clears TWINT). The rest
 * (CPU, timers, PWM, ADC, pin-change and external interrupts, the watchdog) is simavr's. */
#include <avr_adc.h>
#include <avr_ioport.h>
#include <avr_twi.h>
#include <sim_avr.h>
#include <sim_elf.h>
#include <sim_interrupts.h>
#include <sim_io.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FREQUENCY 16000000UL
#define ADDRESS 20
/* Register addresses in data space (ATmega32U4). */
#define PINB 0x23
#define DDRB 0x24
#define PORTB 0x25
#define PORTC 0x28
#define DDRD 0x2A
#define PORTD 0x2B
#define TCCR1A 0x80
#define OCR1AL 0x88
#define OCR1BL 0x8A
#define TCCR3B 0x91
#define ICR3L 0x96
#define TIMSK3 0x71
#define TWINT 7
#define TWEA 6
#define TWSTO 4
#define TWEN 2

static avr_t *avr;
static avr_twi_t *twi;

static void fail(const char *what) {
    fprintf(stderr, "harness: %s\n", what);
    exit(2);
}

static void step(void) {
    int state = avr_run(avr);
    if (state == cpu_Done || state == cpu_Crashed) fail("the firmware stopped or crashed");
}

static void run_cycles(uint64_t cycles) {
    uint64_t until = avr->cycle + cycles;
    while (avr->cycle < until) step();
}

static void run_us(uint64_t us) {
    run_cycles(us * (FREQUENCY / 1000000));
}

/* TWCR as the datasheet has it: writing 1 to TWINT clears it (and lets the bus go on),
 * writing 0 leaves it; TWSTO, in slave mode, only recovers from a bus error. */
static void twcr_write(avr_t *a, avr_io_addr_t addr, uint8_t v, void *param) {
    (void)param;
    uint8_t twint = a->data[addr] & (1 << TWINT);
    a->data[addr] = (uint8_t)((v & ~(1 << TWINT) & ~(1 << TWSTO)) | twint);
    if (v & (1 << TWINT)) {
        /* TWINT is a sticky flag to simavr: clearing the interrupt leaves it set. */
        a->data[addr] &= (uint8_t) ~(1 << TWINT);
        avr_clear_interrupt(a, &twi->twi);
    }
}

static uint8_t twcr(void) {
    return avr->data[twi->r_twcr];
}

/* A bus event: the status code, TWINT raised, and the clock held until the firmware clears
 * TWINT (at most 10 ms, a stuck slave). */
static void event(uint8_t status) {
    avr->data[twi->r_twsr] = (uint8_t)((avr->data[twi->r_twsr] & 0x07) | status);
    avr_raise_interrupt(avr, &twi->twi);
    uint64_t limit = avr->cycle + FREQUENCY / 100;
    while (twcr() & (1 << TWINT)) {
        if (avr->cycle > limit) fail("the firmware held the clock for 10 ms");
        step();
    }
}

/* Whether the slave answers its address now (enabled, acknowledging, that address). */
static int answers(void) {
    return (twcr() & (1 << TWEN)) && (twcr() & (1 << TWEA)) &&
           (avr->data[twi->r_twar] >> 1) == ADDRESS;
}

/* Bits on the bus at 100 kHz: 10 us each. */
static void bits(int n) {
    run_us((uint64_t)n * 10);
}

static int write_transaction(const uint8_t *bytes, int n) {
    bits(10);
    if (!answers()) return 0;
    event(0x60); /* own SLA+W received, ACK returned */
    for (int i = 0; i < n; i++) {
        bits(9);
        int ack = (twcr() & (1 << TWEA)) != 0;
        avr->data[twi->r_twdr] = bytes[i];
        event(ack ? 0x80 : 0x88);
        if (!ack) break;
    }
    bits(1);
    event(0xA0); /* STOP while addressed */
    return 1;
}

static int read_transaction(uint8_t *bytes, int n) {
    bits(10);
    if (!answers()) return 0;
    event(0xA8); /* own SLA+R received, ACK returned: the firmware loads the first byte */
    for (int i = 0; i < n; i++) {
        bits(9);
        bytes[i] = avr->data[twi->r_twdr];
        /* The master acknowledges every byte but the last. */
        event(i + 1 < n ? 0xB8 : 0xC0);
    }
    bits(1);
    return 1;
}

static uint16_t reg16(uint16_t low) {
    return (uint16_t)(avr->data[low] | (avr->data[low + 1] << 8));
}

static int bit(uint16_t reg, int b) {
    return (avr->data[reg] >> b) & 1;
}

static long motor(uint16_t ocr, int com_bit, int pwm_pin, int dir_pin) {
    if (!bit(TCCR1A, com_bit) || !bit(DDRB, pwm_pin)) return 0;
    long v = reg16(ocr);
    return bit(PORTB, dir_pin) ? -v : v;
}

/* Drives an input pin from outside. simavr re-raises a pin with its pull-up at every write
 * of the port, so the level is set as the port's external pull, which takes precedence. */
static void set_pin(char port, int b, int level) {
    static uint8_t mask[8], value[8];
    int i = port - 'B';
    if (i < 0 || i >= 8) fail("ports B to F");
    mask[i] |= (uint8_t)(1 << b);
    value[i] = (uint8_t)((value[i] & ~(1 << b)) | ((level ? 1 : 0) << b));
    avr_ioport_external_t e = {.name = (unsigned)port, .mask = mask[i], .value = value[i]};
    avr_ioctl(avr, AVR_IOCTL_IOPORT_SET_EXTERNAL(port), &e);
    avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(port), b), level);
}

/* Channels A and B of an encoder, B on `b_port`/`b_bit`, A xor B on `x_port`/`x_bit`. */
struct encoder {
    char b_port, x_port;
    int b_bit, x_bit, a, b;
};

/* Both pins start high (as the pull-ups leave them): B = 1 and A = B xor 1 = 0. */
static struct encoder left = {'E', 'B', 2, 4, 0, 1};
static struct encoder right = {'F', 'E', 0, 6, 0, 1};

/* The quadrature sequence forwards: (A, B) = 00, 01, 11, 10. */
static void quad(struct encoder *e, long steps) {
    static const int seq_a[4] = {0, 0, 1, 1}, seq_b[4] = {0, 1, 1, 0};
    int at = 0;
    while (seq_a[at] != e->a || seq_b[at] != e->b) at++;
    for (long i = 0; i < labs(steps); i++) {
        at = (at + (steps > 0 ? 1 : 3)) % 4;
        e->a = seq_a[at];
        e->b = seq_b[at];
        set_pin(e->b_port, e->b_bit, e->b);
        set_pin(e->x_port, e->x_bit, e->a ^ e->b);
        run_us(50);
    }
}

static void command(char *line) {
    char *words[24];
    int n = 0;
    for (char *w = strtok(line, " \t\n"); w && n < 24; w = strtok(NULL, " \t\n")) words[n++] = w;
    if (n == 0) return;
    const char *c = words[0];
    if (!strcmp(c, "run") && n == 2) {
        run_us(strtoull(words[1], NULL, 10) * 1000);
        puts("ok");
    } else if (!strcmp(c, "write") && n >= 2) {
        uint8_t bytes[24];
        for (int i = 1; i < n; i++) bytes[i - 1] = (uint8_t)strtoul(words[i], NULL, 0);
        int ok = write_transaction(bytes, n - 1);
        run_us(100);
        puts(ok ? "ack" : "nack");
    } else if ((!strcmp(c, "read") && n == 3) || (!strcmp(c, "readmore") && n == 2)) {
        int more = !strcmp(c, "readmore");
        if (!more) {
            uint8_t offset = (uint8_t)strtoul(words[1], NULL, 0);
            int ok = write_transaction(&offset, 1);
            run_us(100);
            if (!ok) {
                puts("nack");
                return;
            }
        }
        int count = atoi(words[more ? 1 : 2]);
        uint8_t bytes[64];
        if (count < 1 || count > 64) fail("read 1 to 64 bytes");
        if (!read_transaction(bytes, count)) {
            puts("nack");
            return;
        }
        for (int i = 0; i < count; i++) printf(i ? " %02x" : "%02x", bytes[i]);
        putchar('\n');
    } else if (!strcmp(c, "motors")) {
        printf("%ld %ld\n", motor(OCR1BL, 5, 6, 2), motor(OCR1AL, 7, 5, 1));
    } else if (!strcmp(c, "leds")) {
        /* Yellow is lit high; green and red are lit low, when driven. */
        printf("%d %d %d\n", bit(PORTC, 7), bit(DDRD, 5) && !bit(PORTD, 5),
               bit(DDRB, 0) && !bit(PORTB, 0));
    } else if (!strcmp(c, "tone")) {
        int on = avr->data[TCCR3B] & 0x07;
        printf("%lu\n", on ? (unsigned long)(2000000UL / (reg16(ICR3L) + 1UL)) : 0UL);
    } else if (!strcmp(c, "adc") && n == 3) {
        avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_ADC0 + atoi(words[1])),
                      (uint32_t)atoi(words[2]));
        puts("ok");
    } else if (!strcmp(c, "pin") && n == 4) {
        set_pin(words[1][0], atoi(words[2]), atoi(words[3]));
        puts("ok");
    } else if (!strcmp(c, "quad") && n == 3) {
        quad(!strcmp(words[1], "left") ? &left : &right, atol(words[2]));
        puts("ok");
    } else if (!strcmp(c, "ms")) {
        printf("%llu\n", (unsigned long long)(avr->cycle / (FREQUENCY / 1000)));
    } else {
        fail("unknown command");
    }
}

int main(int argc, char **argv) {
    /* Line by line, answers as soon as they are written: the tests wait for each. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc != 2) fail("usage: harness FIRMWARE.elf");
    elf_firmware_t f;
    memset(&f, 0, sizeof f);
    if (elf_read_firmware(argv[1], &f) != 0) fail("cannot read the firmware");
    avr = avr_make_mcu_by_name("atmega32u4");
    if (!avr) fail("simavr has no atmega32u4");
    avr_init(avr);
    avr->frequency = FREQUENCY;
    avr->vcc = avr->avcc = avr->aref = 5000;
    avr->log = LOG_NONE;
    avr_load_firmware(avr, &f);
    for (avr_io_t *io = avr->io_port; io; io = io->next) {
        if (!strcmp(io->kind, "twi")) twi = (avr_twi_t *)io;
    }
    if (!twi) fail("no TWI module");
    avr->io[AVR_DATA_TO_IO(twi->r_twcr)].w.c = twcr_write;
    avr->io[AVR_DATA_TO_IO(twi->r_twcr)].w.param = NULL;
    /* Button A released, the encoders' pins high. (Buttons B and C share their pins with
     * LEDs, which an external pull would hold: they are left alone.) */
    set_pin('B', 3, 1);
    set_pin(left.b_port, left.b_bit, 1);
    set_pin(left.x_port, left.x_bit, 1);
    set_pin(right.b_port, right.b_bit, 1);
    set_pin(right.x_port, right.x_bit, 1);
    /* simavr's loader prints what it loaded: the answers begin after this line. */
    puts("ready");
    fflush(stdout);
    char line[512];
    while (fgets(line, sizeof line, stdin)) {
        command(line);
        fflush(stdout);
    }
    return 0;
}
