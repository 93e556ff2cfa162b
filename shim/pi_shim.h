/* The Raspberry Pi's GPIO and PWM files for the shim (pi_shim.c), called from the hooks in
 * i2c_shim.c; each returns "not mine" (-2, 0 or `*ours` false) for every other file. */
#ifndef AFFECT_PI_SHIM_H
#define AFFECT_PI_SHIM_H
#include <stddef.h>
#include <sys/types.h>

void pi_init(void);
/* `path` as the emulated Pi has it: in AFFECT_SHIM_PI's folder (written into `buf`), or as is. */
const char *pi_path(const char *path, char *buf, size_t n);
int pi_open(const char *path, int flags, mode_t mode, int (*real)(const char *, int, ...));
void pi_close(int fd);
ssize_t pi_write(int fd, const void *buf, size_t n);
/* 1 when the request was the emulated chip's (its result in `*result`), else 0. */
int pi_ioctl(int fd, unsigned long request, void *arg, int *result);
/* Whether a mapping of `fd` is of the GPIO registers; then `pi_mapped` with what was mapped. */
int pi_mapping(int fd);
void pi_mapped(void *m, size_t len, long long off);
void pi_munmap(void *addr);
#endif
