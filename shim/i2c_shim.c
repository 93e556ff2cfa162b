/*
 * affect's I2C shim: an LD_PRELOAD library that answers rppal's open/ioctl/read/write calls on
 * /dev/i2c-N as a Raspberry Pi's I2C bus with two devices on it, so the runtime's real
 * hardware path (rppal, the drivers, the run loop) can be exercised on a machine without a
 * Pi, natively and under qemu-user. See docs/raspberry-pi.md, section 9;
 * the Pi's GPIO and PWM are pi_shim.c's, built into the same library.
 *
 * The devices:
 *   - a TI ADS1115 ADC (data sheet SBAS444): pointer register, config register (OS, MUX,
 *     PGA, MODE, DR), conversion register, big-endian; a single-shot conversion takes 1/DR
 *     seconds of CLOCK_MONOTONIC, during which OS reads 0; each input's voltage is
 *     programmable;
 *   - a Pololu Romi 32U4 board running Pololu's RomiRPiSlaveDemo (pololu-rpi-slave-arduino
 *     -library): the 43-byte shared buffer, a write is [offset, data...] applied at the STOP,
 *     a read answers from a snapshot taken when the offset arrived; a read that comes less
 *     than 100 us after the previous write to it is not acknowledged (the AVR's TWI module
 *     is off until its STOP interrupt is handled: why a_star.py sleeps 100 us); each wheel's
 *     speed follows the commanded one with a motor's acceleration (it reaches full speed in
 *     about 0.2 s), at 12 counts a second per unit of speed, less a little slip that varies
 *     with time, integrated over CLOCK_MONOTONIC.
 *
 * State lives in a file mapped shared (AFFECT_SHIM_STATE), so every process that loads the
 * shim (the runtime, its watchdog, a test) sees one bus; a test reads the Romi's buffer from it
 * after the run. Every transfer is appended to a text log (AFFECT_SHIM_LOG), one line each:
 *
 *     <monotonic ns> <pid> W|R <address, 2 hex digits> <bytes in hex>|-<errno name>
 *
 * Environment (read when the state file is created):
 *   AFFECT_SHIM_STATE   the state file (required; without it the shim does nothing)
 *   AFFECT_SHIM_LOG     the transfer log (optional)
 *   AFFECT_SHIM_BUS     the bus number (default 1: /dev/i2c-1)
 *   AFFECT_SHIM_ADS1115 the ADC's address (default 0x48; "none": absent)
 *   AFFECT_SHIM_ROMI    the Romi's address (default 20; "none": absent)
 *   AFFECT_SHIM_A0..A3  the inputs' voltages (default 0)
 *   AFFECT_SHIM_LEFT_GAIN, AFFECT_SHIM_RIGHT_GAIN  how fast each wheel turns for its speed
 *                       (default 1; 0 stalls it)
 *   AFFECT_SHIM_FAIL    "ADDR,AFTER,COUNT": after AFTER transfers to ADDR, the next COUNT
 *                       fail with EREMOTEIO (no acknowledge)
 * Faults on reads (AFTER counts the reads from ADDR that went before; COUNT reads are hit):
 *   AFFECT_SHIM_FLIP    "ADDR,AFTER,COUNT,BYTE,BIT": bit BIT of byte BYTE of the read is
 *                       flipped (a corrupted transfer)
 *   AFFECT_SHIM_STRETCH "ADDR,AFTER,COUNT": the slave stretched the clock and the Pi's
 *                       controller sampled too early (the BCM2835's clock-stretching bug):
 *                       the bytes read are shifted one bit, the first bit lost
 *   AFFECT_SHIM_LATE    "ADDR,AFTER,COUNT,MICROS": the answer comes MICROS us late (the
 *                       slave holds the clock), then is right
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pi_shim.h"

#define ROMI_SIZE 43
#define ROMI_LEFT_MOTOR 6
#define ROMI_RIGHT_MOTOR 8
#define ROMI_BATTERY 10
#define ROMI_LEFT_ENCODER 39
#define ROMI_RIGHT_ENCODER 41
#define ROMI_MAX_WRITE 16
#define COUNTS_PER_SPEED_SECOND 12.0
/* How fast a wheel's speed follows its command, counts a second per second: 3,600 counts a
 * second (full speed) in about 0.2 s. */
#define ACCELERATION 18000.0
/* The share of the wheel's turning lost to slip, at most (it varies with time). */
#define SLIP 0.03
/* A read this soon after a write to the Romi finds its TWI module off. */
#define READ_AFTER_WRITE_NS 100000

/* The state file's layout; tests read it at these offsets (tests/support/shim.rs). */
struct state {
    char magic[8];            /* 0: "AFSHIM02" */
    uint32_t ads_address;     /* 8: 0 when absent */
    uint32_t romi_address;    /* 12: 0 when absent */
    double volts[4];          /* 16: AIN0..AIN3 */
    double gain[2];           /* 48: left, right wheel */
    uint8_t romi[64];         /* 64: the Romi's buffer (Pololu's layout) */
    uint8_t romi_snapshot[64];/* 128: what a read answers from */
    uint32_t romi_index;      /* 192 */
    uint32_t ads_pointer;     /* 196 */
    uint16_t ads_config;      /* 200: as the ADC holds it (OS bit aside) */
    uint16_t ads_conversion;  /* 202 */
    uint32_t ads_pending;     /* 204: a single-shot conversion is under way */
    int64_t ads_ready_ns;     /* 208: when it is done */
    double counts[2];         /* 216: encoder counts, fractional */
    int64_t romi_last_ns;     /* 232: when the wheels were last integrated */
    uint32_t fail_address;    /* 240 */
    int32_t fail_after;       /* 244: transfers to fail_address before failures, -1 never */
    uint32_t fail_count;      /* 248 */
    uint32_t transfers;       /* 252: every transfer so far */
    struct fault {
        uint32_t address;     /* 0 when not set */
        int32_t after;        /* reads from the address before the fault */
        uint32_t count;       /* reads it hits */
        uint32_t arg[2];      /* FLIP: byte, bit; LATE: micros */
    } flip, stretch, late;    /* 256, 276, 296 */
    uint32_t reads_from[128]; /* 316: reads from each address */
    int64_t romi_write_ns;    /* 832: when the last write to the Romi ended */
    double velocity[2];       /* 840: each wheel's speed, counts a second */
    int64_t romi_start_ns;    /* 856: when the state was made (the slip's phase) */
};

_Static_assert(offsetof(struct state, romi) == 64, "layout");
_Static_assert(offsetof(struct state, ads_config) == 200, "layout");
_Static_assert(offsetof(struct state, counts) == 216, "layout");
_Static_assert(offsetof(struct state, flip) == 256, "layout");
_Static_assert(sizeof(struct state) == 864, "layout");

#define MAX_FDS 4096

static struct state *st;
static int state_fd = -1;
static int log_fd = -1;
static char dev_path[64] = "/dev/i2c-1";
/* Per open descriptor: is it ours, and the slave address set on it (-1 none). */
static signed char ours[MAX_FDS];
static int slave[MAX_FDS];

static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_openat64)(int, const char *, int, ...);
static int (*real_close)(int);
static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_write)(int, const void *, size_t);
static int (*real_ioctl)(int, unsigned long, ...);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static void *(*real_mmap64)(void *, size_t, int, int, int, off64_t);
static int (*real_munmap)(void *, size_t);
static int (*real_statx)(int, const char *, int, unsigned, struct statx *);
static int (*real_stat)(const char *, struct stat *);
static int (*real_stat64)(const char *, struct stat64 *);
static int (*real_lstat)(const char *, struct stat *);
static int (*real_lstat64)(const char *, struct stat64 *);

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double env_num(const char *name, double dflt) {
    const char *v = getenv(name);
    return v && *v ? strtod(v, NULL) : dflt;
}

static uint32_t env_address(const char *name, uint32_t dflt) {
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    if (strcmp(v, "none") == 0) return 0;
    return (uint32_t)strtoul(v, NULL, 0);
}

/* "ADDR,AFTER,COUNT[,ARG[,ARG]]" */
static void read_fault(struct fault *fl, const char *name) {
    const char *v = getenv(name);
    if (!v || !*v) return;
    char *end;
    fl->address = (uint32_t)strtoul(v, &end, 0);
    if (*end == ',') fl->after = (int32_t)strtol(end + 1, &end, 0);
    if (*end == ',') fl->count = (uint32_t)strtoul(end + 1, &end, 0);
    for (int i = 0; i < 2 && *end == ','; i++) fl->arg[i] = (uint32_t)strtoul(end + 1, &end, 0);
}

/* Whether the fault hits this read (the `n`th from its address, from 0). */
static int hits(const struct fault *fl, int addr, uint32_t n) {
    return fl->address && (int)fl->address == addr && n >= (uint32_t)fl->after &&
           n < (uint32_t)fl->after + fl->count;
}

static void init_state(struct state *s) {
    memset(s, 0, sizeof *s);
    memcpy(s->magic, "AFSHIM02", 8);
    s->ads_address = env_address("AFFECT_SHIM_ADS1115", 0x48);
    s->romi_address = env_address("AFFECT_SHIM_ROMI", 20);
    const char *names[4] = {"AFFECT_SHIM_A0", "AFFECT_SHIM_A1", "AFFECT_SHIM_A2", "AFFECT_SHIM_A3"};
    for (int i = 0; i < 4; i++) s->volts[i] = env_num(names[i], 0.0);
    s->gain[0] = env_num("AFFECT_SHIM_LEFT_GAIN", 1.0);
    s->gain[1] = env_num("AFFECT_SHIM_RIGHT_GAIN", 1.0);
    /* The ADS1115's power-up config (data sheet 8.1.3): 0x8583. */
    s->ads_config = 0x8583;
    uint16_t mv = 7400;
    memcpy(&s->romi[ROMI_BATTERY], &mv, 2);
    memcpy(s->romi_snapshot, s->romi, sizeof s->romi);
    s->romi_last_ns = now_ns();
    s->romi_start_ns = s->romi_last_ns;
    s->fail_after = -1;
    read_fault(&s->flip, "AFFECT_SHIM_FLIP");
    read_fault(&s->stretch, "AFFECT_SHIM_STRETCH");
    read_fault(&s->late, "AFFECT_SHIM_LATE");
    const char *f = getenv("AFFECT_SHIM_FAIL");
    if (f && *f) {
        char *end;
        s->fail_address = (uint32_t)strtoul(f, &end, 0);
        if (*end == ',') s->fail_after = (int32_t)strtol(end + 1, &end, 0);
        if (*end == ',') s->fail_count = (uint32_t)strtoul(end + 1, &end, 0);
    }
}

#define RESOLVE(name) real_##name = dlsym(RTLD_NEXT, #name)

__attribute__((constructor)) static void shim_init(void) {
    RESOLVE(open);
    RESOLVE(open64);
    RESOLVE(openat);
    RESOLVE(openat64);
    RESOLVE(close);
    RESOLVE(read);
    RESOLVE(write);
    RESOLVE(ioctl);
    RESOLVE(mmap);
    RESOLVE(mmap64);
    RESOLVE(munmap);
    RESOLVE(statx);
    RESOLVE(stat);
    RESOLVE(stat64);
    RESOLVE(lstat);
    RESOLVE(lstat64);
    pi_init();
    const char *path = getenv("AFFECT_SHIM_STATE");
    if (!path || !*path || !real_open) return;
    const char *bus = getenv("AFFECT_SHIM_BUS");
    snprintf(dev_path, sizeof dev_path, "/dev/i2c-%s", bus && *bus ? bus : "1");
    int fd = real_open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    flock(fd, LOCK_EX);
    struct stat sb;
    int fresh = fstat(fd, &sb) == 0 && sb.st_size < (off_t)sizeof(struct state);
    if (fresh && ftruncate(fd, sizeof(struct state)) != 0) {
        flock(fd, LOCK_UN);
        real_close(fd);
        return;
    }
    void *m = mmap(NULL, sizeof(struct state), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        flock(fd, LOCK_UN);
        real_close(fd);
        return;
    }
    st = m;
    if (fresh || memcmp(st->magic, "AFSHIM02", 8) != 0) init_state(st);
    flock(fd, LOCK_UN);
    state_fd = fd;
    const char *log = getenv("AFFECT_SHIM_LOG");
    if (log && *log) log_fd = real_open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

static int is_ours(int fd) { return fd >= 0 && fd < MAX_FDS && ours[fd]; }

static void log_transfer(char dir, int addr, const uint8_t *b, size_t n, int err) {
    if (log_fd < 0) return;
    char line[512];
    int k = snprintf(line, sizeof line, "%lld %d %c %02x ", (long long)now_ns(), (int)getpid(), dir, addr);
    if (err) {
        k += snprintf(line + k, sizeof line - k, "-%s", err == EREMOTEIO ? "EREMOTEIO" : "EIO");
    } else {
        for (size_t i = 0; i < n && k < (int)sizeof line - 4; i++) k += snprintf(line + k, sizeof line - k, "%02x", b[i]);
    }
    line[k++] = '\n';
    real_write(log_fd, line, (size_t)k);
}

/* ---------------------------------------------------------------- ADS1115 */

static const double fsr[8] = {6.144, 4.096, 2.048, 1.024, 0.512, 0.256, 0.256, 0.256};
static const double sps[8] = {8, 16, 32, 64, 128, 250, 475, 860};

static double ads_input(uint16_t config) {
    int mux = (config >> 12) & 7;
    double *v = st->volts;
    switch (mux) {
    case 0: return v[0] - v[1];
    case 1: return v[0] - v[3];
    case 2: return v[1] - v[3];
    case 3: return v[2] - v[3];
    default: return v[mux - 4];
    }
}

static uint16_t ads_code(uint16_t config) {
    double full = fsr[(config >> 9) & 7];
    double code = ads_input(config) / full * 32768.0;
    if (code > 32767.0) code = 32767.0;
    if (code < -32768.0) code = -32768.0;
    long c = code < 0 ? (long)(code - 0.5) : (long)(code + 0.5);
    return (uint16_t)(int16_t)c;
}

/* Finishes a single-shot conversion that is due; continuous mode follows the input. */
static void ads_update(void) {
    int64_t now = now_ns();
    if (st->ads_pending && now >= st->ads_ready_ns) {
        st->ads_conversion = ads_code(st->ads_config);
        st->ads_pending = 0;
    }
    if (!(st->ads_config & 0x0100)) st->ads_conversion = ads_code(st->ads_config);
}

static int ads_write(const uint8_t *b, size_t n) {
    if (n == 0) return 0;
    st->ads_pointer = b[0] & 3;
    if (n >= 3 && st->ads_pointer == 1) {
        ads_update();
        uint16_t v = (uint16_t)(b[1] << 8 | b[2]);
        /* OS = 1 in single-shot mode starts a conversion; OS is not stored. */
        if ((v & 0x8000) && (v & 0x0100)) {
            st->ads_pending = 1;
            st->ads_ready_ns = now_ns() + (int64_t)(1e9 / sps[(v >> 5) & 7]);
        }
        st->ads_config = v & 0x7FFF;
    }
    return 0;
}

static int ads_read(uint8_t *b, size_t n) {
    ads_update();
    uint16_t reg;
    switch (st->ads_pointer) {
    case 0: reg = st->ads_conversion; break;
    case 1: reg = (uint16_t)(st->ads_config | (st->ads_pending ? 0 : 0x8000)); break;
    case 2: reg = 0x8000; break; /* Lo_thresh's reset value */
    default: reg = 0x7FFF;       /* Hi_thresh's */
    }
    for (size_t i = 0; i < n; i++) b[i] = (uint8_t)(i % 2 == 0 ? reg >> 8 : reg & 0xFF);
    return 0;
}

/* ---------------------------------------------------------------- Romi 32U4 */

static int16_t le16(const uint8_t *p) { return (int16_t)(p[0] | p[1] << 8); }

static void romi_update(void) {
    int64_t now = now_ns();
    double dt = (double)(now - st->romi_last_ns) / 1e9;
    st->romi_last_ns = now;
    if (dt <= 0) return;
    int16_t speed[2] = {le16(&st->romi[ROMI_LEFT_MOTOR]), le16(&st->romi[ROMI_RIGHT_MOTOR])};
    double t = (double)(now - st->romi_start_ns) / 1e9;
    for (int w = 0; w < 2; w++) {
        int16_t s = speed[w] > 300 ? 300 : speed[w] < -300 ? -300 : speed[w];
        /* The wheel's speed moves toward the command at the motor's acceleration. */
        double target = s * COUNTS_PER_SPEED_SECOND * st->gain[w];
        double v0 = st->velocity[w], step = ACCELERATION * dt;
        double v1 = fabs(target - v0) <= step ? target : v0 + (target > v0 ? step : -step);
        st->velocity[w] = v1;
        /* A little slip, different for each wheel and over time. */
        double slip = SLIP * (0.5 + 0.5 * sin(3.0 * t + 1.7 * w));
        st->counts[w] += 0.5 * (v0 + v1) * dt * (1.0 - slip);
        double c = st->counts[w];
        long long whole = c < 0 ? (long long)(c - 0.5) : (long long)(c + 0.5);
        int16_t wrapped = (int16_t)(uint16_t)(whole & 0xFFFF);
        memcpy(&st->romi[w ? ROMI_RIGHT_ENCODER : ROMI_LEFT_ENCODER], &wrapped, 2);
    }
}

static int romi_write(const uint8_t *b, size_t n) {
    st->romi_write_ns = now_ns();
    if (n == 0) return 0;
    romi_update();
    /* receive(): the first byte is the offset, and takes the read snapshot. */
    memcpy(st->romi_snapshot, st->romi, sizeof st->romi);
    st->romi_index = b[0];
    size_t len = n - 1 > ROMI_MAX_WRITE ? ROMI_MAX_WRITE : n - 1;
    /* stop(): the buffered bytes land in the buffer. */
    for (size_t i = 0; i < len; i++) {
        size_t at = st->romi_index + i;
        if (at < sizeof st->romi) st->romi[at] = b[1 + i];
    }
    return 0;
}

static int romi_read(uint8_t *b, size_t n) {
    romi_update();
    for (size_t i = 0; i < n; i++) {
        uint32_t at = st->romi_index++;
        b[i] = at < sizeof st->romi_snapshot ? st->romi_snapshot[at] : 0;
    }
    return 0;
}

/* ---------------------------------------------------------------- the bus */

/* The injected faults that hit the `nth` read from `addr`. */
static void corrupt(int addr, uint32_t nth, uint8_t *b, size_t n) {
    if (hits(&st->flip, addr, nth) && st->flip.arg[0] < n) b[st->flip.arg[0]] ^= (uint8_t)(1u << (st->flip.arg[1] & 7));
    if (hits(&st->stretch, addr, nth)) {
        for (size_t i = 0; i < n; i++) b[i] = (uint8_t)(b[i] << 1 | (i + 1 < n ? b[i + 1] >> 7 : 1));
    }
    if (hits(&st->late, addr, nth)) {
        struct timespec ts = {st->late.arg[0] / 1000000, (long)(st->late.arg[0] % 1000000) * 1000};
        nanosleep(&ts, NULL);
    }
}

/* One transfer (START..STOP) to `addr`; returns 0 or an errno. */
static int transfer(int addr, int is_read, uint8_t *b, size_t n) {
    flock(state_fd, LOCK_EX);
    st->transfers++;
    int err = 0;
    if (addr == (int)st->fail_address && st->fail_after >= 0) {
        if (st->fail_after > 0) {
            st->fail_after--;
        } else if (st->fail_count > 0) {
            st->fail_count--;
            err = EREMOTEIO;
        }
    }
    uint32_t nth = 0;
    if (is_read && addr >= 0 && addr < 128) nth = st->reads_from[addr]++;
    if (!err && is_read && st->romi_address && addr == (int)st->romi_address &&
        now_ns() - st->romi_write_ns < READ_AFTER_WRITE_NS) {
        /* Too soon after a write: the AVR does not acknowledge its address. */
        err = EREMOTEIO;
    }
    if (!err) {
        if (st->ads_address && addr == (int)st->ads_address) {
            is_read ? ads_read(b, n) : ads_write(b, n);
        } else if (st->romi_address && addr == (int)st->romi_address) {
            is_read ? romi_read(b, n) : romi_write(b, n);
        } else {
            /* Nobody acknowledges the address: the Pi's controller says EREMOTEIO. */
            err = EREMOTEIO;
        }
    }
    if (!err && is_read) corrupt(addr, nth, b, n);
    flock(state_fd, LOCK_UN);
    log_transfer(is_read ? 'R' : 'W', addr, b, n, err);
    return err;
}

static int open_device(const char *path) {
    if (!st || !path || strcmp(path, dev_path) != 0) return -2;
    int fd = real_open("/dev/null", O_RDWR | O_CLOEXEC);
    if (fd < 0) return fd;
    if (fd >= MAX_FDS) {
        real_close(fd);
        errno = EMFILE;
        return -1;
    }
    ours[fd] = 1;
    slave[fd] = -1;
    return fd;
}

#define OPEN_BODY(real, ...)                               \
    mode_t mode = 0;                                       \
    if (flags & (O_CREAT | O_TMPFILE)) {                   \
        va_list ap;                                        \
        va_start(ap, flags);                               \
        mode = va_arg(ap, mode_t);                         \
        va_end(ap);                                        \
    }                                                      \
    int r = open_device(path);                             \
    if (r != -2) return r;                                 \
    r = pi_open(path, flags, mode, real_open);             \
    if (r != -2) return r;                                 \
    return real(__VA_ARGS__, flags, mode)

int open(const char *path, int flags, ...) {
    if (!real_open) shim_init();
    OPEN_BODY(real_open, path);
}

int open64(const char *path, int flags, ...) {
    if (!real_open64) shim_init();
    OPEN_BODY(real_open64, path);
}

int openat(int dirfd, const char *path, int flags, ...) {
    if (!real_openat) shim_init();
    OPEN_BODY(real_openat, dirfd, path);
}

int openat64(int dirfd, const char *path, int flags, ...) {
    if (!real_openat64) shim_init();
    OPEN_BODY(real_openat64, dirfd, path);
}

/* The Pi's files are looked at where the shim keeps them (rppal asks whether a PWM channel
 * is exported). */
#define STAT_BODY(real, ...)                               \
    char buf[1024];                                        \
    path = pi_path(path, buf, sizeof buf);                 \
    return real(__VA_ARGS__)

int statx(int dirfd, const char *restrict path, int flags, unsigned mask, struct statx *restrict out) {
    if (!real_statx) shim_init();
    STAT_BODY(real_statx, dirfd, path, flags, mask, out);
}

int stat(const char *restrict path, struct stat *restrict out) {
    if (!real_stat) shim_init();
    STAT_BODY(real_stat, path, out);
}

int stat64(const char *restrict path, struct stat64 *restrict out) {
    if (!real_stat64) shim_init();
    STAT_BODY(real_stat64, path, out);
}

int lstat(const char *restrict path, struct stat *restrict out) {
    if (!real_lstat) shim_init();
    STAT_BODY(real_lstat, path, out);
}

int lstat64(const char *restrict path, struct stat64 *restrict out) {
    if (!real_lstat64) shim_init();
    STAT_BODY(real_lstat64, path, out);
}

/* The GPIO registers' mapping is watched (pi_shim.c). */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
    if (!real_mmap) shim_init();
    int gpio = pi_mapping(fd);
    void *m = real_mmap(addr, len, prot, flags, fd, off);
    if (gpio) pi_mapped(m, len, off);
    return m;
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off) {
    if (!real_mmap64) shim_init();
    int gpio = pi_mapping(fd);
    void *m = real_mmap64(addr, len, prot, flags, fd, off);
    if (gpio) pi_mapped(m, len, off);
    return m;
}

int munmap(void *addr, size_t len) {
    if (!real_munmap) shim_init();
    pi_munmap(addr);
    return real_munmap(addr, len);
}

int close(int fd) {
    if (is_ours(fd)) ours[fd] = 0;
    pi_close(fd);
    return real_close(fd);
}

ssize_t read(int fd, void *buf, size_t n) {
    if (!is_ours(fd)) return real_read(fd, buf, n);
    if (slave[fd] < 0) {
        errno = EINVAL;
        return -1;
    }
    int err = transfer(slave[fd], 1, buf, n);
    if (err) {
        errno = err;
        return -1;
    }
    return (ssize_t)n;
}

ssize_t write(int fd, const void *buf, size_t n) {
    ssize_t pi = pi_write(fd, buf, n);
    if (pi != -2) return pi;
    if (!is_ours(fd)) return real_write(fd, buf, n);
    if (slave[fd] < 0) {
        errno = EINVAL;
        return -1;
    }
    uint8_t copy[256];
    if (n > sizeof copy) {
        errno = EINVAL;
        return -1;
    }
    memcpy(copy, buf, n);
    int err = transfer(slave[fd], 0, copy, n);
    if (err) {
        errno = err;
        return -1;
    }
    return (ssize_t)n;
}

/* The functionality of the Pi's bcm2835 I2C controller. */
#define FUNCS (I2C_FUNC_I2C | I2C_FUNC_SMBUS_EMUL | I2C_FUNC_PROTOCOL_MANGLING)

int ioctl(int fd, unsigned long request, ...) {
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    int result;
    if (pi_ioctl(fd, request, arg, &result)) return result;
    if (!is_ours(fd)) return real_ioctl(fd, request, arg);
    unsigned long value = (unsigned long)(uintptr_t)arg;
    switch (request) {
    case I2C_SLAVE:
    case I2C_SLAVE_FORCE:
        if (value > 0x7F) {
            errno = EINVAL;
            return -1;
        }
        slave[fd] = (int)value;
        return 0;
    case I2C_TENBIT:
    case I2C_PEC:
        /* Neither is used with these devices; turning them on is refused. */
        if (value) {
            errno = EINVAL;
            return -1;
        }
        return 0;
    case I2C_RETRIES:
    case I2C_TIMEOUT:
        return 0;
    case I2C_FUNCS:
        *(unsigned long *)arg = FUNCS;
        return 0;
    case I2C_RDWR: {
        struct i2c_rdwr_ioctl_data *d = arg;
        for (unsigned i = 0; i < d->nmsgs; i++) {
            struct i2c_msg *m = &d->msgs[i];
            int err = transfer(m->addr, m->flags & I2C_M_RD, m->buf, m->len);
            if (err) {
                errno = err;
                return -1;
            }
        }
        return (int)d->nmsgs;
    }
    default:
        /* SMBus transfers and the rest are not modelled: said, not faked. */
        errno = ENOTTY;
        return -1;
    }
}
