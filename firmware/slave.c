/* The TWI (I2C) slave and the shared buffer. The protocol is the one Pololu's
 * PololuRPiSlave library speaks, written here from its description:
 *
 * - a write transaction is [offset, bytes...]; the bytes (at most 16) are kept aside and
 *   applied to the buffer at the STOP, all at once (a motor command is never half applied);
 * - the first byte after each START sets the offset and takes a snapshot of the buffer;
 *   reads answer from that snapshot, advancing the offset byte by byte, so a multi-byte read
 *   (or a_star.py's run of one-byte reads) is consistent;
 * - the interrupt stretches the clock by PI_DELAY_US at each event, as the Pololu library
 *   does to keep clear of the Raspberry Pi's clock-stretching bug. */
#include "slave.h"
#include "board.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <string.h>
#include <util/delay.h>
#include <util/twi.h>

#ifndef PI_DELAY_US
#define PI_DELAY_US 5
#endif

#define MAX_WRITE 16
#define TWCR_LISTEN ((1 << TWEN) | (1 << TWEA) | (1 << TWIE) | (1 << TWINT))

static union {
    struct romi_data data;
    uint8_t bytes[sizeof(struct romi_data)];
} staging;
static uint8_t snapshot[sizeof(struct romi_data)];
static uint8_t pending[MAX_WRITE];
static uint8_t pending_len;
static uint8_t offset;
static uint8_t offset_set;
/* When a write last touched the motor speeds (milliseconds since the start). */
static uint32_t motor_stamp;

void slave_init(uint8_t address) {
    TWAR = (uint8_t)(address << 1);
    TWCR = TWCR_LISTEN;
}

void slave_snapshot(struct romi_data *out) {
    uint8_t sreg = SREG;
    cli();
    memcpy(out, &staging.data, sizeof *out);
    SREG = sreg;
}

void slave_update(uint8_t at, const void *bytes, uint8_t n) {
    if ((uint16_t)at + n > sizeof staging.bytes) return;
    uint8_t sreg = SREG;
    cli();
    memcpy(&staging.bytes[at], bytes, n);
    SREG = sreg;
}

uint8_t slave_expire_motors(uint32_t now_ms, uint16_t timeout_ms) {
    uint8_t expired = 0;
    uint8_t sreg = SREG;
    cli();
    if (timeout_ms != 0 && (uint32_t)(now_ms - motor_stamp) >= timeout_ms &&
        (staging.data.left_motor != 0 || staging.data.right_motor != 0)) {
        staging.data.left_motor = 0;
        staging.data.right_motor = 0;
        expired = 1;
    }
    SREG = sreg;
    return expired;
}

static void received(uint8_t b) {
    if (!offset_set) {
        offset = b;
        offset_set = 1;
        memcpy(snapshot, staging.bytes, sizeof snapshot);
    } else if (pending_len < MAX_WRITE) {
        pending[pending_len++] = b;
    }
}

static uint8_t next_to_send(void) {
    uint8_t at = offset++;
    return at < sizeof snapshot ? snapshot[at] : 0;
}

/* The STOP (or a repeated START) after a write: the bytes go into the buffer. */
static void apply_write(void) {
    if (pending_len == 0) return;
    for (uint8_t i = 0; i < pending_len; i++) {
        uint16_t at = (uint16_t)offset + i;
        if (at < sizeof staging.bytes) staging.bytes[at] = pending[i];
    }
    if (offset < ROMI_MOTORS_END && (uint16_t)offset + pending_len > ROMI_LEFT_MOTOR) {
        motor_stamp = board_millis();
    }
    pending_len = 0;
}

ISR(TWI_vect) {
    switch (TW_STATUS) {
    case TW_SR_SLA_ACK:
    case TW_SR_ARB_LOST_SLA_ACK:
        _delay_us(PI_DELAY_US);
        offset_set = 0;
        pending_len = 0;
        break;
    case TW_SR_DATA_ACK:
        _delay_us(PI_DELAY_US);
        received(TWDR);
        break;
    case TW_SR_STOP:
        apply_write();
        break;
    case TW_ST_SLA_ACK:
    case TW_ST_ARB_LOST_SLA_ACK:
        _delay_us(PI_DELAY_US);
        offset_set = 0;
        TWDR = next_to_send();
        break;
    case TW_ST_DATA_ACK:
        _delay_us(PI_DELAY_US);
        TWDR = next_to_send();
        break;
    case TW_BUS_ERROR:
        /* An illegal START or STOP: release the lines and listen again. */
        pending_len = 0;
        TWCR = TWCR_LISTEN | (1 << TWSTO);
        return;
    default:
        /* The master ended a read (NACK), or data after our NACK: nothing to do. */
        break;
    }
    TWCR = TWCR_LISTEN;
}
