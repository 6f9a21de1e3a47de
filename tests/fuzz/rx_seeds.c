/* Writes the receive-path fuzz target's seed programs (tests/fuzz/rx_program.h):
 * genuine control frames of every kind the receive path takes (config,
 * NACK, goodbye, ried chunks, ships, unloads and answers, sync requests and
 * answers, credits), each over variable frames and fixed frames of several
 * sizes. A frame that the sender's frames cannot carry at a size (a ried
 * frame is at least 192 bytes: its payload starts at 128; a ship's chunks
 * want room) goes in the smallest sender's size that carries it; the
 * receiver's answers stay at the size named. usage: rx_seeds DIR */
#include <stdio.h>
#include <string.h>

#include "rx_program.h"

typedef struct prog {
    uint8_t b[2048];
    size_t  n;
} prog_t;

static void put(prog_t *p, unsigned bytes, uint32_t v)
{
    while (bytes-- > 0) {
        p->b[p->n++] = (uint8_t)(v >> (8 * bytes));
    }
}

static void put_text(prog_t *p, const char *text)
{
    size_t k;

    put(p, 1, (uint32_t)strlen(text));
    for (k = 0; text[k] != '\0'; ++k) {
        put(p, 1, (uint8_t)text[k]);
    }
}

static void jam(prog_t *p, unsigned op, unsigned which)
{
    put(p, 1, op);
    put(p, 1, which);
    put(p, 2, 0); /* no payload */
    if (which == RX_JAM_SEQ) {
        put(p, 4, 1);
    }
}

/* A genuine jam with len payload bytes (fill, fill + 1, ...). */
static void jam_len(prog_t *p, unsigned op, unsigned which, unsigned len, unsigned fill)
{
    put(p, 1, op);
    put(p, 1, which);
    put(p, 2, len);
    while (len-- > 0) {
        put(p, 1, (fill++) & 0xff);
    }
}

/* A put into the frame that landed and was not run yet: len bytes at. */
static void rewrite(prog_t *p, unsigned at, unsigned len, unsigned fill)
{
    put(p, 1, RX_OP_REWRITE);
    put(p, 2, at);
    put(p, 1, len - 1);
    while (len-- > 0) {
        put(p, 1, (fill++) & 0xff);
    }
}

static void steps(prog_t *p)
{
    put(p, 1, RX_OP_RX_STEPS);
    put(p, 1, 3);
    put(p, 1, RX_OP_TX_PROGRESS);
}

static void config(prog_t *p, unsigned what, unsigned size)
{
    put(p, 1, RX_OP_CONFIG);
    put(p, 1, what | (size << 2));
}

static void nack(prog_t *p, unsigned status, const char *reason)
{
    put(p, 1, RX_OP_NACK);
    put(p, 1, 0); /* the receiver's latest frame */
    put(p, 1, status);
    put_text(p, reason);
}

static void ried(prog_t *p, unsigned op, unsigned id, unsigned name, uint16_t total,
                 uint16_t offset, uint16_t len)
{
    put(p, 1, RX_OP_RIED);
    put(p, 1, op);
    put(p, 1, id);
    put(p, 1, name);
    put(p, 2, total);
    put(p, 2, offset);
    put(p, 2, len);
    if (!(name & RX_RIED_DATA_LIB)) {
        while (len-- > 0) {
            put(p, 1, 0x7f);
        }
    }
}

static void ship(prog_t *p, unsigned id, unsigned flaw)
{
    put(p, 1, RX_OP_RIED_SHIP);
    put(p, 1, id);
    put(p, 1, flaw);
    put(p, 2, 64); /* the byte a flaw flips: inside the ELF header */
}

static void sync(prog_t *p, unsigned sub, unsigned which, unsigned status, unsigned count)
{
    put(p, 1, RX_OP_SYNC);
    put(p, 1, sub);
    put(p, 1, which);
    put(p, 1, status);
    put(p, 1, count);
}

static void credits(prog_t *p, unsigned sub)
{
    put(p, 1, RX_OP_CREDITS);
    put(p, 1, sub);
    put(p, 1, 0);
}

/* The programs, one per control frame kind; tx_min: the smallest sender's
 * frame size (RX_FS_*) that carries its frames. */
static void seed_config(prog_t *p)
{
    config(p, 0, RX_FS_256); /* the sender's size */
    jam(p, RX_OP_LOCAL, RX_JAM_SEQ);
    steps(p);
    config(p, 1, RX_FS_128); /* the receiver's */
    jam(p, RX_OP_LOCAL, RX_JAM_NOOP);
    steps(p);
    config(p, 2 | (1u << 2), 0); /* the sender waits with pause */
    config(p, 2, 0);             /* and polls again */
    config(p, 3, RX_FS_512);     /* both */
    jam(p, RX_OP_LOCAL, RX_JAM_NOOP);
    steps(p);
}

static void seed_nack(prog_t *p)
{
    jam(p, RX_OP_LOCAL, RX_JAM_NOOP);
    steps(p);
    nack(p, 11, "malformed frame"); /* TC_ERR_BAD_FRAME, as a library sends it */
    nack(p, 0, "no status");        /* malformed: the receiver rejects it */
    nack(p, 99, "past the last");
    steps(p);
    jam(p, RX_OP_LOCAL, RX_JAM_NOOP);
    steps(p);
}

static void seed_goodbye(prog_t *p)
{
    jam(p, RX_OP_LOCAL, RX_JAM_NOOP);
    steps(p);
    put(p, 1, RX_OP_GOODBYE);
    steps(p);
}

/* A goodbye and a frame after it, taken in one receiver call. */
static void seed_goodbye_then_jam(prog_t *p)
{
    put(p, 1, RX_OP_GOODBYE);
    jam(p, RX_OP_LOCAL, RX_JAM_NOOP);
    steps(p);
}

static void seed_ried_unload(prog_t *p)
{
    ried(p, 1, 9, 4, 0, 0, 0); /* an id nobody shipped */
    steps(p);
    jam(p, RX_OP_LOCAL, RX_JAM_NOOP);
    steps(p);
}

static void seed_ried_chunks(prog_t *p)
{
    ried(p, 0, 1, RX_RIED_NAME_OWN, 0, 0, 0);                          /* size 0 */
    steps(p);
    ried(p, 0, 2, RX_RIED_NAME_OWN | RX_RIED_DATA_LIB, 0, 0, 40);       /* the start only */
    steps(p);
    ried(p, 0, 2, RX_RIED_NAME_OWN | RX_RIED_DATA_LIB, 0, 4000, 40);    /* out of order */
    steps(p);
    ried(p, 7, 3, 1, 0, 0, 0);                                          /* an unknown op */
    steps(p);
}

static void seed_ried_ship(prog_t *p)
{
    ship(p, 1, 0); /* loads: the receiver's own ried */
    steps(p);
    ried(p, 1, 1, 4, 0, 0, 0); /* and unloads it */
    steps(p);
}

static void seed_ried_ship_flawed(prog_t *p)
{
    ship(p, 2, 1); /* one byte differs: the allow-list refuses it */
    steps(p);
    ship(p, 3, 2); /* half of it */
    ship(p, 4, 3); /* the second half under another id */
    steps(p);
}

static void seed_ried_answer(prog_t *p)
{
    put(p, 1, RX_OP_RIED_ANSWER);
    put(p, 1, 0); /* the id the receiver waits for (none) */
    put(p, 1, 0);
    put_text(p, "ried_bench_add");
    put(p, 1, RX_OP_RIED_ANSWER);
    put(p, 1, 5);
    put(p, 1, 0xff);
    put_text(p, "cannot load");
    steps(p);
}

static void seed_sync_request(prog_t *p)
{
    sync(p, 0, RX_JAM_NOOP, 0, 0); /* no GOT slot */
    steps(p);
    sync(p, 0, RX_JAM_COPY, 0, 0); /* one GOT slot */
    steps(p);
    jam(p, RX_OP_INJECTED, RX_JAM_COPY);
    steps(p);
}

static void seed_sync_cache(prog_t *p)
{
    sync(p, 4, RX_JAM_NOOP, 0, 0);
    steps(p);
    jam(p, RX_OP_CACHED, RX_JAM_NOOP);
    steps(p);
}

static void seed_sync_bad_code(prog_t *p)
{
    sync(p, 3, RX_JAM_NOOP, 0, 0); /* the code of the next jam */
    steps(p);
}

static void seed_sync_answer(prog_t *p)
{
    sync(p, 1, RX_JAM_COPY, 0, 0x80); /* ok, the jam's slot count */
    sync(p, 1, RX_JAM_NOOP, 2, 0);    /* a miss */
    sync(p, 1, RX_JAM_COPY, 5, 3);    /* failed, a wrong count */
    steps(p);
}

/* The receiver forgets what it cached; the sender's next cached frame. */
static void seed_forget_cached(prog_t *p)
{
    jam(p, RX_OP_CACHED, RX_JAM_NOOP);
    steps(p);
    sync(p, 2, 0, 0, 0);
    jam(p, RX_OP_CACHED, RX_JAM_NOOP);
    steps(p);
}

/* One-line frames (a 64-byte frame: header, payload of up to 8 bytes and
 * signal in one line): a stream of them of every payload length, taken
 * one at a time and several at once; the sender's frame size changing
 * under the stream (the slots' signal words move) and back; the receiver's
 * answers' size changing; a landed line rewritten before it runs (its
 * header's package, seq and flags, its signal); cached ones. */
static void seed_line(prog_t *p)
{
    unsigned len;

    for (len = 0; len <= 8; ++len) {
        jam_len(p, RX_OP_LOCAL, RX_JAM_NOOP, len, len);
        if (len & 1) {
            steps(p);
        }
    }
    steps(p);
    config(p, 0, RX_FS_128); /* the sender's frames grow mid-stream */
    jam_len(p, RX_OP_LOCAL, RX_JAM_NOOP, 8, 0x40);
    config(p, 0, RX_FS_64);  /* and shrink again: one line */
    jam_len(p, RX_OP_LOCAL, RX_JAM_NOOP, 8, 0x50);
    jam_len(p, RX_OP_LOCAL, RX_JAM_NOOP, 4, 0x60);
    steps(p);
    config(p, 1, RX_FS_128); /* the receiver's answers */
    jam_len(p, RX_OP_LOCAL, RX_JAM_NOOP, 8, 0x70);
    rewrite(p, 8, 1, 0x11);  /* its package id */
    steps(p);
    jam_len(p, RX_OP_LOCAL, RX_JAM_NOOP, 8, 0x80);
    rewrite(p, 4, 4, 0x22);  /* its seq */
    steps(p);
    jam_len(p, RX_OP_LOCAL, RX_JAM_NOOP, 8, 0x90);
    rewrite(p, 15, 1, 0x7f); /* its flags */
    steps(p);
    jam_len(p, RX_OP_LOCAL, RX_JAM_NOOP, 8, 0xa0);
    rewrite(p, 56, 8, 0x33); /* its signal */
    steps(p);
    jam_len(p, RX_OP_LOCAL, RX_JAM_NOOP, 8, 0xb0);
    rewrite(p, 28, 2, 0x44); /* its layout (args_len) */
    steps(p);
    jam_len(p, RX_OP_CACHED, RX_JAM_NOOP, 8, 0xc0);
    jam_len(p, RX_OP_CACHED, RX_JAM_NOOP, 3, 0xd0);
    steps(p);
    jam_len(p, RX_OP_CACHED, RX_JAM_NOOP, 8, 0xe0);
    rewrite(p, 12, 2, 0x55); /* a cached line's element */
    steps(p);
}

/* A rewrite of one byte of the frame that landed: what a hostile peer does
 * to a line frame's field (lib/codec/frame_line.h) between its arrival and its
 * run. */
static void rewrite_byte(prog_t *p, unsigned at, unsigned value)
{
    put(p, 1, RX_OP_REWRITE);
    put(p, 2, at);
    put(p, 1, 0);
    put(p, 1, value);
}

/* Line frames (fixed 64-byte frames: a jam's frames after its first),
 * each field of theirs rewritten once while it waits: the length past the
 * line's room, unknown and cache flags, another kind, the tag (a general
 * frame's size byte), the version of an old peer, the magic, the element,
 * the ack; local and cached, with and without a reply asked. */
static void seed_line_compact(prog_t *p)
{
    static const struct {
        uint8_t at, value;
    } edits[] = {
        {1, 0xFF}, {1, 25}, {1, 24}, {2, 0x80}, {2, 0x04}, {3, 2}, {3, 5}, {0, 0x40},
        {14, 3}, {15, 0xC6}, {12, 0x7F}, {19, 0x40}, {23, 0x01}, {31, 0x80},
    };
    unsigned i;

    for (i = 0; i < 3; ++i) {
        jam_len(p, RX_OP_LOCAL, RX_JAM_NOOP, 8, i);
    }
    steps(p);
    for (i = 0; i < sizeof(edits) / sizeof(edits[0]); ++i) {
        jam_len(p, (i & 1) ? RX_OP_CACHED : RX_OP_LOCAL, RX_JAM_NOOP, 8, 0x10 * i);
        jam_len(p, (i & 1) ? RX_OP_CACHED : RX_OP_LOCAL, RX_JAM_NOOP, 8, 0x10 * i + 1);
        rewrite_byte(p, edits[i].at, edits[i].value);
        steps(p);
    }
    jam(p, RX_OP_LOCAL, RX_JAM_SEQ); /* a reply asked */
    jam(p, RX_OP_LOCAL, RX_JAM_SEQ);
    rewrite_byte(p, 2, 0x00);        /* its reply flag dropped */
    steps(p);
    config(p, 0, RX_FS_128);         /* lines end with the 64-byte frames */
    jam_len(p, RX_OP_LOCAL, RX_JAM_NOOP, 8, 0xf0);
    config(p, 0, RX_FS_64);          /* and come back */
    jam_len(p, RX_OP_LOCAL, RX_JAM_NOOP, 8, 0xf1);
    jam_len(p, RX_OP_LOCAL, RX_JAM_NOOP, 8, 0xf2);
    steps(p);
}

static void seed_credits(prog_t *p)
{
    unsigned k;

    for (k = 0; k < 6; ++k) {
        jam(p, RX_OP_LOCAL, RX_JAM_NOOP);
    }
    put(p, 1, RX_OP_RX_STEPS);
    put(p, 1, 3);
    credits(p, 0); /* the sender's credit put */
    credits(p, 1); /* a NOP with the acks */
    credits(p, 2); /* a flush */
    steps(p);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void      (*write)(prog_t *p);
        unsigned    tx_min; /* RX_FS_* */
        int         any;
    } seeds[] = {
        {"config", seed_config, RX_FS_64, 0},
        {"nack", seed_nack, RX_FS_64, 0},
        {"goodbye", seed_goodbye, RX_FS_64, 0},
        {"goodbye-then-jam", seed_goodbye_then_jam, RX_FS_64, 0},
        {"ried-unload", seed_ried_unload, RX_FS_192, 0},
        {"ried-chunks", seed_ried_chunks, RX_FS_192, 0},
        {"ried-ship", seed_ried_ship, RX_FS_1024, 0},
        {"ried-ship-flawed", seed_ried_ship_flawed, RX_FS_1024, 0},
        {"ried-answer", seed_ried_answer, RX_FS_192, 0},
        {"sync-request", seed_sync_request, RX_FS_1024, 0},
        {"sync-cache", seed_sync_cache, RX_FS_1024, 0},
        {"sync-bad-code", seed_sync_bad_code, RX_FS_1024, 0},
        {"sync-answer", seed_sync_answer, RX_FS_128, 0},
        {"forget-cached", seed_forget_cached, RX_FS_64, 0},
        {"forget-cached-any", seed_forget_cached, RX_FS_64, 1},
        {"credits", seed_credits, RX_FS_64, 0},
        {"line", seed_line, RX_FS_64, 0},
        {"line-any", seed_line, RX_FS_64, 1},
        {"line-compact", seed_line_compact, RX_FS_64, 0},
        {"line-compact-any", seed_line_compact, RX_FS_64, 1},
    };
    static const struct {
        const char *name;
        int         fixed;
        unsigned    size; /* RX_FS_* */
    } stages[] = {
        {"var", 0, 0},           {"fixed64", 1, RX_FS_64},   {"fixed128", 1, RX_FS_128},
        {"fixed192", 1, RX_FS_192}, {"fixed256", 1, RX_FS_256}, {"fixed1024", 1, RX_FS_1024},
    };
    char path[4096];
    unsigned i, s;
    prog_t prog;
    FILE *f;

    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); ++i) {
        for (s = 0; s < sizeof(stages) / sizeof(stages[0]); ++s) {
            unsigned tx = (stages[s].size > seeds[i].tx_min) ? stages[s].size : seeds[i].tx_min;

            prog.n = 0;
            put(&prog, 1, RX_SETUP(seeds[i].any, stages[s].fixed, stages[s].fixed ? tx : 0,
                                   stages[s].size));
            seeds[i].write(&prog);
            snprintf(path, sizeof(path), "%s/seed-%s-%s", argv[1], seeds[i].name,
                     stages[s].name);
            f = fopen(path, "wb");
            if (f == NULL) {
                perror(path);
                return 1;
            }
            fwrite(prog.b, 1, prog.n, f);
            if (fclose(f) != 0) {
                perror(path);
                return 1;
            }
        }
    }
    return 0;
}
