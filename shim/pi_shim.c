/*
 * The Raspberry Pi's GPIO and PWM for affect's shim (built with i2c_shim.c into one LD_PRELOAD
 * library): the files rppal 0.22 opens are answered from a folder of the test's own
 * (AFFECT_SHIM_PI), laid out as the Pi's root:
 *
 *   /proc/cpuinfo, /sys/firmware/devicetree/base/...  the model rppal identifies (a Pi 4 B:
 *                       BCM2711, /dev/gpiomem, PWM chip 0)
 *   /dev/gpiomem        the BCM2711's GPIO registers: a regular file mapped MAP_SHARED, so what
 *                       a process writes outlives it and every process sees one GPIO block
 *   /dev/gpiochip0      the GPIO character device: only its GPIO_GET_CHIPINFO_IOCTL answers
 *                       (rppal finds the chip by its label); line requests (interrupts) are
 *                       refused with ENOTTY
 *   /sys/class/pwm/pwmchip0/...  plain files, with the kernel's rules where they matter: a
 *                       write to export makes pwmN/ with period, duty_cycle, enable and
 *                       polarity (EBUSY if it is there), unexport removes it, a duty cycle
 *                       longer than the period (or a period shorter than the duty cycle) is
 *                       EINVAL
 *
 * The GPIO block's set and clear registers (GPSET0/1, GPCLR0/1) are write-only on the chip: a
 * write of 1 << pin changes that pin's output latch, and GPLEV0/1 read the pins' levels. A
 * file alone would only keep the last mask written to each, so on x86-64 the mapping is kept
 * inaccessible: each access faults, the fault handler opens the page and single-steps the one
 * instruction (the trap flag), and the trap handler applies what was written to the latch
 * (kept in the file at LATCH), sets GPLEV's bits of every pin in output mode (GPFSEL 001) from
 * it, clears the set and clear words, and closes the page again. Elsewhere (aarch64, armv7
 * under qemu) the page stays open and the set and clear words keep only the last mask.
 * Every change of an output's level and every duty cycle written is appended to gpio.log in
 * the folder, one line each (a test reads what happened, not only how it ended):
 *
 *     <monotonic ns> <pid> G <pin> <0|1>
 *     <monotonic ns> <pid> P <pwmchipC/pwmN> <duty ns>
 *
 * Inputs' levels are what the file's GPLEV holds (a test may write them), but for an HC-SR04
 * ranger's echo pin when one is wired (x86-64 only: its level follows the time):
 *
 *   AFFECT_SHIM_HCSR04        "TRIG,ECHO,METRES": a falling edge of the trigger pin (its pulse
 *                             ends) sends a ping; 0.5 ms later the echo pin goes high for the
 *                             sound's time there and back to an obstacle METRES away (343 m/s)
 *   AFFECT_SHIM_HCSR04_FAULT  "AFTER,COUNT,METRES": pings AFTER..AFTER+COUNT-1 (from 0) echo
 *                             from METRES instead (a ghost echo, a missed one at 6.5)
 */
#define _GNU_SOURCE
#include "pi_shim.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/gpio.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

/* Word offsets of the BCM2835/2711 GPIO registers (BCM2711 ARM Peripherals, 5.2). */
#define GPFSEL0 0
#define GPSET0 (0x1c / 4)
#define GPCLR0 (0x28 / 4)
#define GPLEV0 (0x34 / 4)
/* The shim's output latch (two words), past the registers rppal maps (61 words); then the
 * HC-SR04's last ping (ns, two words) and the pings so far. */
#define LATCH (0x100 / 4)
#define PING (0x120 / 4)
#define PINGS (0x128 / 4)
#define GPIO_PINS 58
#define PAGE 4096

enum kind { NONE, GPIOCHIP, GPIOMEM, EXPORT, UNEXPORT, PERIOD, DUTY };

#define MAX_FDS 4096
static unsigned char kind[MAX_FDS];
/* The pwmN folder (EXPORT, UNEXPORT: the chip's) of a PWM file descriptor. */
static char *folder[MAX_FDS];

static char root[512];
static size_t root_len;
static int log_fd = -1;

/* The paths answered from the folder. */
static const char *const prefixes[] = {
    "/proc/cpuinfo", "/sys/firmware/devicetree/base/", "/dev/gpiomem", "/sys/class/pwm/",
};

/* The HC-SR04: its pins (-1: none), the obstacle, the pings that echo from elsewhere. */
static int hc_trigger = -1, hc_echo = -1;
static double hc_metres;
static long hc_fault_after = -1, hc_fault_count;
static double hc_fault_metres;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void pi_init(void) {
    const char *hc = getenv("AFFECT_SHIM_HCSR04");
    if (hc && sscanf(hc, "%d,%d,%lf", &hc_trigger, &hc_echo, &hc_metres) != 3) hc_trigger = hc_echo = -1;
    const char *f = getenv("AFFECT_SHIM_HCSR04_FAULT");
    if (f && sscanf(f, "%ld,%ld,%lf", &hc_fault_after, &hc_fault_count, &hc_fault_metres) != 3) hc_fault_after = -1;
    const char *r = getenv("AFFECT_SHIM_PI");
    if (!r || !*r || strlen(r) >= sizeof root - 128) return;
    strcpy(root, r);
    root_len = strlen(root);
    char log[600];
    snprintf(log, sizeof log, "%s/gpio.log", root);
    log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

/* Appends the decimal `v` to `b` at `*k` (no stdio: this runs in a signal handler). */
static void put(char *b, size_t *k, uint64_t v) {
    char d[24];
    int n = 0;
    do {
        d[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n) b[(*k)++] = d[--n];
}

/* One line of gpio.log: "<ns> <pid> <what> <where> <value>". */
static void log_line(char what, const char *where, uint64_t value) {
    if (log_fd < 0) return;
    char b[256];
    size_t k = 0;
    put(b, &k, (uint64_t)now_ns());
    b[k++] = ' ';
    put(b, &k, (uint64_t)getpid());
    b[k++] = ' ';
    b[k++] = what;
    b[k++] = ' ';
    for (const char *c = where; *c && k < 200; c++) b[k++] = *c;
    b[k++] = ' ';
    put(b, &k, value);
    b[k++] = '\n';
    ssize_t w = write(log_fd, b, k);
    (void)w;
}

const char *pi_path(const char *path, char *buf, size_t n) {
    if (!root_len || !path || path[0] != '/') return path;
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
        if (strncmp(path, prefixes[i], strlen(prefixes[i])) == 0) {
            if ((size_t)snprintf(buf, n, "%s%s", root, path) >= n) return path;
            return buf;
        }
    }
    return path;
}

static int ends_with(const char *s, const char *tail) {
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

static void forget(int fd) {
    if (fd < 0 || fd >= MAX_FDS) return;
    kind[fd] = NONE;
    free(folder[fd]);
    folder[fd] = NULL;
}

int pi_open(const char *path, int flags, mode_t mode, int (*real)(const char *, int, ...)) {
    if (!root_len || !path) return -2;
    if (strncmp(path, "/dev/gpiochip", 13) == 0) {
        if (strcmp(path + 13, "0") != 0) {
            errno = ENOENT;
            return -1;
        }
        int fd = real("/dev/null", O_RDWR | O_CLOEXEC);
        if (fd >= 0 && fd < MAX_FDS) kind[fd] = GPIOCHIP;
        return fd;
    }
    char buf[1024];
    const char *p = pi_path(path, buf, sizeof buf);
    if (p == path) return -2;
    int fd = real(p, flags, mode);
    if (fd < 0 || fd >= MAX_FDS) return fd;
    forget(fd);
    enum kind k = strncmp(path, "/dev/gpiomem", 12) == 0 ? GPIOMEM
                  : ends_with(p, "/export")              ? EXPORT
                  : ends_with(p, "/unexport")            ? UNEXPORT
                  : ends_with(p, "/period")              ? PERIOD
                  : ends_with(p, "/duty_cycle")          ? DUTY
                                                         : NONE;
    kind[fd] = (unsigned char)k;
    if (k == EXPORT || k == UNEXPORT || k == PERIOD || k == DUTY) {
        folder[fd] = strdup(p);
        *strrchr(folder[fd], '/') = 0;
    }
    return fd;
}

void pi_close(int fd) { forget(fd); }

static int write_text(const char *dir, const char *name, const char *text) {
    char p[1300];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f);
}

static long long read_number(const char *dir, const char *name) {
    char p[1300];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "r");
    if (!f) return 0;
    long long v = 0;
    if (fscanf(f, "%lld", &v) != 1) v = 0;
    fclose(f);
    return v;
}

/* A channel number written to export or unexport. */
static int channel_of(const void *buf, size_t n) {
    char text[16] = {0};
    memcpy(text, buf, n < sizeof text - 1 ? n : sizeof text - 1);
    char *end;
    long c = strtol(text, &end, 10);
    return end == text || c < 0 || c > 15 ? -1 : (int)c;
}

/* The kernel's pwm sysfs (drivers/pwm/sysfs.c) on export, unexport, period and duty_cycle;
 * -2 when the write is not one of those, else the write's result. */
ssize_t pi_write(int fd, const void *buf, size_t n) {
    if (fd < 0 || fd >= MAX_FDS || !kind[fd]) return -2;
    const char *dir = folder[fd];
    switch (kind[fd]) {
    case GPIOCHIP:
        errno = EINVAL;
        return -1;
    case EXPORT:
    case UNEXPORT: {
        int c = channel_of(buf, n);
        if (c < 0) {
            errno = EINVAL;
            return -1;
        }
        char pwm[1100];
        snprintf(pwm, sizeof pwm, "%s/pwm%d", dir, c);
        struct stat sb;
        int there = stat(pwm, &sb) == 0;
        if (kind[fd] == EXPORT) {
            if (there) {
                errno = EBUSY;
                return -1;
            }
            if (mkdir(pwm, 0755) != 0 || write_text(pwm, "period", "0\n") ||
                write_text(pwm, "duty_cycle", "0\n") || write_text(pwm, "enable", "0\n") ||
                write_text(pwm, "polarity", "normal\n"))
                return -1;
        } else {
            if (!there) {
                errno = EINVAL;
                return -1;
            }
            const char *files[] = {"period", "duty_cycle", "enable", "polarity"};
            for (int i = 0; i < 4; i++) {
                char f[1200];
                snprintf(f, sizeof f, "%s/%s", pwm, files[i]);
                unlink(f);
            }
            rmdir(pwm);
        }
        return (ssize_t)n;
    }
    case PERIOD:
    case DUTY: {
        char text[32] = {0};
        memcpy(text, buf, n < sizeof text - 1 ? n : sizeof text - 1);
        long long v = strtoll(text, NULL, 10);
        int bad = kind[fd] == DUTY ? v > read_number(dir, "period") : v < read_number(dir, "duty_cycle");
        if (v < 0 || bad) {
            errno = EINVAL;
            return -1;
        }
        if (kind[fd] == DUTY) {
            /* "pwmchipC/pwmN": the last two parts of the folder. */
            const char *p = dir + strlen(dir);
            for (int slashes = 0; p > dir; p--) {
                if (p[-1] == '/' && ++slashes == 2) break;
            }
            log_line('P', p, (uint64_t)v);
        }
        return -2;
    }
    default:
        return -2;
    }
}

int pi_ioctl(int fd, unsigned long request, void *arg, int *result) {
    if (fd < 0 || fd >= MAX_FDS || kind[fd] != GPIOCHIP) return 0;
    if (request == GPIO_GET_CHIPINFO_IOCTL) {
        struct gpiochip_info *info = arg;
        memset(info, 0, sizeof *info);
        strcpy(info->name, "gpiochip0");
        strcpy(info->label, "pinctrl-bcm2711");
        info->lines = GPIO_PINS;
        *result = 0;
    } else {
        /* Line requests (rppal's interrupts) and the rest: not emulated, said so. */
        errno = ENOTTY;
        *result = -1;
    }
    return 1;
}

/* ---------------------------------------------------------------- the GPIO block */

#define MAX_REGIONS 16
static struct region {
    volatile uint32_t *base;
    size_t len;
} regions[MAX_REGIONS];

/* Applies the set and clear words written to the latch, and the latch to GPLEV's bits of
 * the pins in output mode. Atomic on the shared file: the run and its watchdog map it. */
static uint32_t bit(volatile uint32_t *words, int pin) { return words[pin / 32] >> (pin % 32) & 1; }

static void settle(volatile uint32_t *r) {
    uint32_t trigger_was = hc_trigger >= 0 ? bit(&r[LATCH], hc_trigger) : 0;
    uint32_t level_was[2] = {r[GPLEV0], r[GPLEV0 + 1]};
    for (int b = 0; b < 2; b++) {
        uint32_t set = __atomic_exchange_n(&r[GPSET0 + b], 0, __ATOMIC_SEQ_CST);
        uint32_t clr = __atomic_exchange_n(&r[GPCLR0 + b], 0, __ATOMIC_SEQ_CST);
        if (set) __atomic_fetch_or(&r[LATCH + b], set, __ATOMIC_SEQ_CST);
        if (clr) __atomic_fetch_and(&r[LATCH + b], ~clr, __ATOMIC_SEQ_CST);
    }
    uint32_t out[2] = {0, 0};
    for (int pin = 0; pin < GPIO_PINS; pin++) {
        uint32_t fsel = (r[GPFSEL0 + pin / 10] >> ((pin % 10) * 3)) & 7;
        if (fsel == 1) out[pin / 32] |= 1u << (pin % 32);
    }
    for (int b = 0; b < 2; b++) {
        uint32_t latch = r[LATCH + b], old, new;
        do {
            old = r[GPLEV0 + b];
            new = (old & ~out[b]) | (latch & out[b]);
        } while (!__atomic_compare_exchange_n(&r[GPLEV0 + b], &old, new, 0, __ATOMIC_SEQ_CST,
                                              __ATOMIC_SEQ_CST));
    }
    for (int pin = 0; pin < GPIO_PINS; pin++) {
        uint32_t now = bit(&r[GPLEV0], pin);
        if (out[pin / 32] >> (pin % 32) & 1 && now != (level_was[pin / 32] >> (pin % 32) & 1)) {
            char where[4] = {0};
            size_t k = 0;
            put(where, &k, (uint64_t)pin);
            log_line('G', where, now);
        }
    }
    if (trigger_was && !bit(&r[LATCH], hc_trigger)) {
        /* The trigger pulse ended: a ping. */
        __atomic_store_n((volatile int64_t *)&r[PING], now_ns(), __ATOMIC_SEQ_CST);
        __atomic_fetch_add(&r[PINGS], 1, __ATOMIC_SEQ_CST);
    }
}

/* The echo pin's level now: high from 0.5 ms after the last ping for the sound's way there
 * and back. */
__attribute__((unused)) static void echo(volatile uint32_t *r) {
    if (hc_echo < 0) return;
    uint32_t pings = __atomic_load_n(&r[PINGS], __ATOMIC_SEQ_CST);
    if (!pings) return;
    long nth = (long)pings - 1;
    double m = nth >= hc_fault_after && hc_fault_after >= 0 && nth < hc_fault_after + hc_fault_count
                   ? hc_fault_metres
                   : hc_metres;
    int64_t rise = __atomic_load_n((volatile int64_t *)&r[PING], __ATOMIC_SEQ_CST) + 500000;
    int64_t fall = rise + (int64_t)(2.0 * m / 343.0 * 1e9);
    int64_t t = now_ns();
    uint32_t mask = 1u << (hc_echo % 32);
    if (t >= rise && t < fall) {
        __atomic_fetch_or(&r[GPLEV0 + hc_echo / 32], mask, __ATOMIC_SEQ_CST);
    } else {
        __atomic_fetch_and(&r[GPLEV0 + hc_echo / 32], ~mask, __ATOMIC_SEQ_CST);
    }
}

#if defined(__x86_64__)
#define TRAP_FLAG 0x100

static struct sigaction old_segv, old_trap;
static int lock;
static __thread struct region *stepping;

static struct region *region_of(const void *addr) {
    for (int i = 0; i < MAX_REGIONS; i++) {
        const char *b = (const char *)regions[i].base;
        if (b && (const char *)addr >= b && (const char *)addr < b + regions[i].len) return &regions[i];
    }
    return NULL;
}

/* A fault that is not ours goes to the handler before ours (Rust's stack-overflow guard), or
 * ends the process as it would have. */
static void chain(const struct sigaction *old, int sig, siginfo_t *si, void *ctx) {
    if (old->sa_flags & SA_SIGINFO && old->sa_sigaction) {
        old->sa_sigaction(sig, si, ctx);
    } else if (old->sa_handler != SIG_IGN && old->sa_handler != SIG_DFL) {
        old->sa_handler(sig);
    } else {
        signal(sig, SIG_DFL);
        if (sig == SIGTRAP) raise(sig);
    }
}

static void on_segv(int sig, siginfo_t *si, void *ctx) {
    struct region *r = region_of(si->si_addr);
    if (!r) {
        chain(&old_segv, sig, si, ctx);
        return;
    }
    while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE)) {
    }
    mprotect((void *)r->base, r->len, PROT_READ | PROT_WRITE);
    /* An input read sees its level at this moment. */
    echo(r->base);
    stepping = r;
    ((ucontext_t *)ctx)->uc_mcontext.gregs[REG_EFL] |= TRAP_FLAG;
}

static void on_trap(int sig, siginfo_t *si, void *ctx) {
    struct region *r = stepping;
    if (!r) {
        chain(&old_trap, sig, si, ctx);
        return;
    }
    settle(r->base);
    mprotect((void *)r->base, r->len, PROT_NONE);
    stepping = NULL;
    ((ucontext_t *)ctx)->uc_mcontext.gregs[REG_EFL] &= ~TRAP_FLAG;
    __atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}

static void guard(struct region *r) {
    static int installed;
    if (!installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        sa.sa_sigaction = on_segv;
        sigaction(SIGSEGV, &sa, &old_segv);
        sa.sa_sigaction = on_trap;
        sigaction(SIGTRAP, &sa, &old_trap);
        installed = 1;
    }
    mprotect((void *)r->base, r->len, PROT_NONE);
}
#else
static void guard(struct region *r) { (void)r; }
#endif

int pi_mapping(int fd) {
    if (fd < 0 || fd >= MAX_FDS || kind[fd] != GPIOMEM) return 0;
    /* The whole page: a file shorter than the mapping would fault with SIGBUS. */
    struct stat sb;
    if (fstat(fd, &sb) == 0 && sb.st_size < PAGE && ftruncate(fd, PAGE) != 0) return 0;
    return 1;
}

void pi_mapped(void *m, size_t len, long long off) {
    if (m == MAP_FAILED || off != 0 || len > PAGE) return;
    for (int i = 0; i < MAX_REGIONS; i++) {
        if (!regions[i].base) {
            regions[i].base = m;
            regions[i].len = PAGE;
            /* What a process killed mid-write left in the set and clear words lands now,
             * before anything newer. */
            settle(regions[i].base);
            guard(&regions[i]);
            return;
        }
    }
}

void pi_munmap(void *addr) {
    for (int i = 0; i < MAX_REGIONS; i++) {
        if (regions[i].base == addr) regions[i].base = NULL;
    }
}
