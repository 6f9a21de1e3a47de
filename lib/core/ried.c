/*
 * Rieds over the wire, receiver side: chunks of a shared library arrive in
 * ried frames; the whole library is written to a memfd, dlopen'ed from
 * /proc/self/fd, initialised, and its exports listed for the answer; and
 * the sending side (tc_ried_ship, tc_ried_unload). Both frame kinds and the
 * answer owed are registered with dispatch (tc_ried_rx_register); the
 * rieds a context holds are lib/core/ried_store.c's.
 */
#define _GNU_SOURCE
#include "runtime.h"
#include "credits.h"
#include "elfcheck.h"
#include "log.h"
#include "peer_wait.h"
#include "send.h"

#include <dlfcn.h>
#include <elf.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The defined global symbols of an ELF64 shared object in memory, from its
 * .dynsym: the ried's export table. Every offset is checked against len. */
static void tc_ried_exports(const uint8_t *buf, size_t len, char *out, size_t out_len)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;
    const Elf64_Shdr *sh, *dynsym = NULL, *strtab;
    size_t used = 0, i, n;

    out[0] = '\0';
    if ((len < sizeof(*eh)) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
        (eh->e_ident[EI_CLASS] != ELFCLASS64) || (eh->e_shentsize != sizeof(Elf64_Shdr)) ||
        (eh->e_shoff > len) || ((uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len - eh->e_shoff)) {
        return;
    }
    sh = (const Elf64_Shdr *)(buf + eh->e_shoff);
    for (i = 0; i < eh->e_shnum; ++i) {
        if (sh[i].sh_type == SHT_DYNSYM) {
            dynsym = &sh[i];
        }
    }
    if ((dynsym == NULL) || (dynsym->sh_link >= eh->e_shnum) ||
        (dynsym->sh_offset > len) || (dynsym->sh_size > len - dynsym->sh_offset)) {
        return;
    }
    strtab = &sh[dynsym->sh_link];
    if ((strtab->sh_offset > len) || (strtab->sh_size > len - strtab->sh_offset)) {
        return;
    }
    n = dynsym->sh_size / sizeof(Elf64_Sym);
    for (i = 1; i < n; ++i) {
        const Elf64_Sym *sym = (const Elf64_Sym *)(buf + dynsym->sh_offset) + i;
        unsigned bind = ELF64_ST_BIND(sym->st_info), type = ELF64_ST_TYPE(sym->st_info);
        const char *name;

        if ((sym->st_shndx == SHN_UNDEF) || ((bind != STB_GLOBAL) && (bind != STB_WEAK)) ||
            ((type != STT_FUNC) && (type != STT_OBJECT)) || (sym->st_name >= strtab->sh_size)) {
            continue;
        }
        name = (const char *)buf + strtab->sh_offset + sym->st_name;
        if (memchr(name, '\0', strtab->sh_size - sym->st_name) == NULL) {
            continue;
        }
        used += (size_t)snprintf(out + used, (used < out_len) ? out_len - used : 0, "%s%s",
                                 used ? "\n" : "", name);
        if (used >= out_len) {
            out[out_len - 1] = '\0';
            return;
        }
    }
}

static void tc_ried_answer(tc_peer_t *peer, uint32_t op, int32_t status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void tc_ried_answer(tc_peer_t *peer, uint32_t op, int32_t status, const char *fmt, ...)
{
    char name[TC_LOG_TEXT_SIZE], text[TC_LOG_TEXT_SIZE];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(peer->ried->rx.reply_text, sizeof(peer->ried->rx.reply_text), fmt, ap);
    va_end(ap);
    if (status != 0) {
        /* the name is the peer's, and so may be part of the text */
        tc_warn("%s: ried '%s': %s", peer->wireup->name,
                tc_log_text(peer->ried->rx.name, sizeof(peer->ried->rx.name), name, sizeof(name)),
                tc_log_text(peer->ried->rx.reply_text, sizeof(peer->ried->rx.reply_text), text,
                            sizeof(text)));
    }
    peer->ried->rx.reply_status  = status;
    peer->ried->rx.reply_op      = op;
    peer->owed |= TC_OWED_RIED;
}

/* The allow-list for rieds, as for injected code: a shipped library runs
 * only if it is byte-identical to a ried of a package this side accepted.
 * NULL if it may load, else why not. */
static const char *tc_ried_allowed(const tc_peer_t *peer, const char *name)
{
    const tc_context_t *ctx = peer->ctx;
    char path[4096 + TC_MANIFEST_FILE_MAX];
    const tc_manifest_elem_t *me;
    unsigned p, e;
    size_t len;
    void *own;
    int same;

    if (ctx->params.exec == TC_EXEC_LOCAL_ONLY) {
        return "this receiver loads no shipped code (local-only policy)";
    }
    if (ctx->params.exec == TC_EXEC_ANY) {
        return NULL;
    }
    for (p = 0; p < ctx->n_pkgs; ++p) {
        const tc_pkg_t *pkg = ctx->pkgs[p].pkg;
        if (pkg->manifest == NULL) {
            continue;
        }
        for (e = 0; e < pkg->manifest->n_elements; ++e) {
            me = &pkg->manifest->elements[e];
            if ((me->kind != TC_ELEM_RIED) || strcmp(me->name, name)) {
                continue;
            }
            snprintf(path, sizeof(path), "%s", pkg->path);
            snprintf(strrchr(path, '/') ? strrchr(path, '/') + 1 : path,
                     TC_MANIFEST_FILE_MAX, "%s", me->file);
            own  = tc_read_file(path, &len);
            same = (own != NULL) && (len == peer->ried->rx.total) &&
                   (memcmp(own, peer->ried->rx.buf, len) == 0);
            free(own);
            if (same) {
                return NULL;
            }
        }
    }
    return "not a ried of a package this receiver accepted (allow-list)";
}

/* The rieds the peers of peer's process hold here: with their share
 * taken, refused (answered, FALSE), over any of their connections. Cold,
 * as the ried path is: out of the way of the hot paths' layout. */
__attribute__((cold)) static int tc_ried_share_left(tc_peer_t *peer)
{
    const tc_context_t *ctx = peer->ctx;
    unsigned i, held = 0;

    for (i = 0; i < TC_MAX_RIEDS; ++i) {
        held += (ctx->rieds[i].handle != NULL) && (ctx->rieds[i].owner_proc == peer->wireup->proc);
    }
    if (held < ctx->params.ried_max_per_process) {
        return 1;
    }
    tc_ried_answer(peer, TC_RIED_OP_CHUNK, TC_ERR_NO_RESOURCE,
                   "per-process limit: the peer's process holds %u rieds here over its "
                   "connections, the most one process may (%u of the %u entries): unload one "
                   "first", held, ctx->params.ried_max_per_process, TC_MAX_RIEDS);
    return 0;
}

/* Room for total more bytes of a ried under way from peer: within what the
 * peers of its process and all peers together may hold unfinished. Past
 * either, refused (answered, FALSE) before anything is allocated. */
__attribute__((cold)) static int tc_ried_rx_room(tc_peer_t *peer, uint32_t total)
{
    const tc_context_t *ctx = peer->ctx;
    uint64_t mine = 0, all = 0;
    const tc_peer_t *p;

    for (p = ctx->peers; p != NULL; p = p->wireup->ctx_next) {
        uint64_t held = (p->ried->rx.buf != NULL) ? p->ried->rx.total : 0;

        all  += held;
        mine += (p->wireup->proc == peer->wireup->proc) ? held : 0;
    }
    if (mine + total > ctx->params.ried_rx_bytes_per_process) {
        tc_ried_answer(peer, TC_RIED_OP_CHUNK, TC_ERR_NO_RESOURCE,
                       "per-process limit: %u more bytes under way would make the peer's "
                       "process hold %llu of rieds not yet whole here, over %llu", total,
                       (unsigned long long)(mine + total),
                       (unsigned long long)ctx->params.ried_rx_bytes_per_process);
        return 0;
    }
    if (all + total > ctx->params.ried_rx_bytes) {
        tc_ried_answer(peer, TC_RIED_OP_CHUNK, TC_ERR_NO_RESOURCE,
                       "receiver limit: %u more bytes under way would make its peers hold "
                       "%llu of rieds not yet whole here, over %llu: try again later", total,
                       (unsigned long long)(all + total),
                       (unsigned long long)ctx->params.ried_rx_bytes);
        return 0;
    }
    return 1;
}

/* Load the received library; answer with its exports or why not. */
static void tc_ried_load(tc_peer_t *peer)
{
    tc_context_t *ctx = peer->ctx;
    char path[64], sym[TC_RIED_NAME_MAX + 32], err[256];
    tc_ctx_ried_t *slot = NULL;
    tc_ried_init_fn init;
    const char *name;
    unsigned i;
    void *h;
    int fd, rc;

    const char *why;

    /* again: another connection of its process may have loaded meanwhile */
    if (!tc_ried_share_left(peer)) {
        return;
    }
    name = peer->ried->rx.name;
    name = (strncmp(name, "lib", 3) == 0) ? name + 3 : name;
    name = (strncmp(name, "ried_", 5) == 0) ? name + 5 : name;
    why  = tc_ried_allowed(peer, name);
    if (why != NULL) {
        tc_ried_answer(peer, TC_RIED_OP_CHUNK, -1, "%s", why);
        return;
    }
    /* dlopen maps what the memfd holds: a truncated library would be
     * SIGBUS in the loader, not an answer */
    if (tc_elf_check_mem(peer->ried->rx.buf, peer->ried->rx.total, err, sizeof(err), NULL) !=
        TC_OK) {
        tc_ried_answer(peer, TC_RIED_OP_CHUNK, -1, "refused before dlopen: %s", err);
        return;
    }
    for (i = 0; (i < TC_MAX_RIEDS) && (slot == NULL); ++i) {
        slot = (ctx->rieds[i].handle == NULL) ? &ctx->rieds[i] : NULL;
    }
    if (slot == NULL) {
        tc_ried_answer(peer, TC_RIED_OP_CHUNK, TC_ERR_NO_RESOURCE,
                       "no room for another ried (all %d entries in use)", TC_MAX_RIEDS);
        return;
    }
    fd = memfd_create(peer->ried->rx.name, MFD_CLOEXEC);
    if ((fd < 0) ||
        (write(fd, peer->ried->rx.buf, peer->ried->rx.total) != (ssize_t)peer->ried->rx.total)) {
        tc_ried_answer(peer, TC_RIED_OP_CHUNK, -1, "memfd: %m");
        if (fd >= 0) {
            close(fd);
        }
        return;
    }
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        close(fd);
        tc_ried_answer(peer, TC_RIED_OP_CHUNK, -1, "dlopen: %s", dlerror());
        return;
    }

    /* ried_<name> (or libried_<name>) has tc_ried_init_<name> */
    memset(slot, 0, sizeof(*slot));
    snprintf(sym, sizeof(sym), "tc_ried_init_%s", name);
    init = (tc_ried_init_fn)dlsym(h, sym);
    snprintf(sym, sizeof(sym), "tc_ried_fini_%s", name);
    slot->fini = (tc_ried_fini_fn)dlsym(h, sym);
    if (init != NULL) {
        rc = init(&slot->state);
        if (rc != 0) {
            dlclose(h);
            close(fd);
            tc_ried_answer(peer, TC_RIED_OP_CHUNK, -1, "tc_ried_init_%s failed (%d)", name, rc);
            return;
        }
    }
    slot->handle = h;
    slot->fd     = fd;
    slot->owner      = peer->wireup->serial;
    slot->owner_proc = peer->wireup->proc;
    slot->id         = peer->ried->rx.id;
    snprintf(slot->name, sizeof(slot->name), "%s", peer->ried->rx.name);
    tc_ried_exports(peer->ried->rx.buf, peer->ried->rx.total, peer->ried->rx.reply_text,
                    sizeof(peer->ried->rx.reply_text));
    peer->ried->rx.reply_status  = 0;
    peer->ried->rx.reply_op      = TC_RIED_OP_CHUNK;
    peer->owed |= TC_OWED_RIED;
}

/* Receiver: a ried frame from the peer (a chunk, or an unload). */
static void tc_ried_rx(tc_peer_t *peer, const tc_ried_args_t *args, const uint8_t *data,
                       uint32_t len)
{
    tc_context_t *ctx = peer->ctx;
    unsigned i;

    if (args->op == TC_RIED_OP_UNLOAD) {
        for (i = 0; i < TC_MAX_RIEDS; ++i) {
            if ((ctx->rieds[i].handle != NULL) && (ctx->rieds[i].owner == peer->wireup->serial) &&
                (ctx->rieds[i].id == args->id)) {
                snprintf(peer->ried->rx.name, sizeof(peer->ried->rx.name), "%s", ctx->rieds[i].name);
                peer->ried->rx.id = args->id;
                if (ctx->rieds[i].pins > 0) {
                    /* a synced jam's GOT points into it: unloading would
                     * leave that jam calling unmapped code */
                    tc_ried_answer(peer, TC_RIED_OP_UNLOAD, TC_ERR_BUSY,
                                   "in use: %u synced jam(s) have GOT slots resolved into it "
                                   "(it goes once their peers close)", ctx->rieds[i].pins);
                    return;
                }
                tc_ried_unload_slot(&ctx->rieds[i]);
                tc_ried_answer(peer, TC_RIED_OP_UNLOAD, 0, "unloaded");
                return;
            }
        }
        peer->ried->rx.id = args->id;
        snprintf(peer->ried->rx.name, sizeof(peer->ried->rx.name), "#%u", args->id);
        tc_ried_answer(peer, TC_RIED_OP_UNLOAD, TC_ERR_NOT_FOUND, "no ried %u from this peer",
                       args->id);
        return;
    }

    if (args->offset == 0) { /* a new library begins */
        free(peer->ried->rx.buf);
        memset(&peer->ried->rx, 0, offsetof(__typeof__(peer->ried->rx), reply_status));
        peer->ried->rx.id = args->id;
        snprintf(peer->ried->rx.name, sizeof(peer->ried->rx.name), "%.*s",
                 (int)strnlen(args->name, sizeof(args->name)), args->name);
        if ((args->total == 0) || (args->total > TC_RIED_MAX_BYTES)) {
            tc_ried_answer(peer, TC_RIED_OP_CHUNK, -1, "size %u out of range", args->total);
            return;
        }
        /* its process's share, and the bytes under way, before a byte is
         * allocated (its further chunks are then out of order) */
        if (!tc_ried_share_left(peer) || !tc_ried_rx_room(peer, args->total)) {
            return;
        }
        peer->ried->rx.buf = malloc(args->total);
        if (peer->ried->rx.buf == NULL) {
            tc_ried_answer(peer, TC_RIED_OP_CHUNK, -1, "no memory for %u bytes", args->total);
            return;
        }
        peer->ried->rx.total = args->total;
    }
    if ((peer->ried->rx.buf == NULL) && (args->offset != 0) && (args->id == peer->ried->rx.id) &&
        (peer->ried->rx.reply_status != 0)) {
        return; /* the rest of a ried refused at its first chunk: said once */
    }
    if ((peer->ried->rx.buf == NULL) || (args->id != peer->ried->rx.id) ||
        (args->total != peer->ried->rx.total) || (args->offset != peer->ried->rx.received) ||
        (len > peer->ried->rx.total - peer->ried->rx.received)) {
        tc_ried_answer(peer, TC_RIED_OP_CHUNK, -1, "chunk out of order (offset %u)", args->offset);
        free(peer->ried->rx.buf);
        peer->ried->rx.buf = NULL;
        return;
    }
    memcpy(peer->ried->rx.buf + args->offset, data, len);
    peer->ried->rx.received += len;
    if (peer->ried->rx.received == peer->ried->rx.total) {
        tc_ried_load(peer);
        free(peer->ried->rx.buf);
        peer->ried->rx.buf = NULL;
    }
}

/* ------------------------------------------------------ the sending side */

/* The smallest frame that carries a ried frame's ARGS and len payload bytes. */
static uint32_t tc_ried_frame_size(uint32_t len)
{
    tc_frame_layout_t layout = {sizeof(tc_ried_args_t), 0, 0, len};
    tc_frame_offsets_t off;

    return (tc_frame_layout(&layout, UINT32_MAX, &off) == TC_OK) ? off.frame_size : UINT32_MAX;
}

/* A ried frame from the peer: an answer to our ship or unload, or a chunk
 * for us (handed to tc_ried_rx). NULL, or why it is refused (*status_p:
 * what the NACK says). Both kinds, registered with dispatch. */
static const char *tc_ried_rx_frame(void *arg, tc_peer_t *peer, const char *frame,
                                    const tc_frame_hdr_t *hdr, tc_status_t *status_p)
{
    tc_ried_args_t args;
    const char *why;
    uint32_t n;

    (void)arg;
    memcpy(&args, frame + TC_FRAME_HDR_SIZE, sizeof(args)); /* args_len checked */
    if ((args.op != TC_RIED_OP_CHUNK) && (args.op != TC_RIED_OP_UNLOAD)) {
        snprintf(peer->reject->why, sizeof(peer->reject->why), "%s frame with unknown op %u",
                 tc_frame_kind_str(hdr->kind), args.op);
        *status_p = TC_ERR_BAD_FRAME;
        return peer->reject->why;
    }
    if (hdr->kind == TC_KIND_RIED) {
        /* answered in our frames, its ARGS at least (the text is cut to
         * fit): where they cannot hold that, nothing is done */
        why = tc_peer_answer_misfit(peer, tc_ried_frame_size(0), "the ried's answer",
                                    peer->reject->why, sizeof(peer->reject->why));
        if (why != NULL) {
            *status_p = TC_ERR_OUT_OF_RANGE;
            return why;
        }
        peer->ried->rx.reply_seq = hdr->seq;
        tc_ried_rx(peer, &args, (const uint8_t *)frame + hdr->payload_off, hdr->payload_len);
        return NULL;
    }
    if ((args.id != peer->ried->tx.wait_id) || peer->ried->tx.done) {
        return NULL; /* an answer nobody waits for any more (the first one is the answer) */
    }
    n = (hdr->payload_len < sizeof(peer->ried->tx.text)) ? hdr->payload_len :
                                                          sizeof(peer->ried->tx.text) - 1;
    memcpy(peer->ried->tx.text, frame + hdr->payload_off, n);
    peer->ried->tx.text[n] = '\0';
    peer->ried->tx.status  = args.status;
    peer->ried->tx.done    = 1;
    return NULL;
}

/* One ried frame; the payload is cut to what the frame can carry when
 * may_truncate (answers), else it must fit. The caller checked credits. */
static tc_status_t tc_peer_send_ried(tc_peer_t *peer, uint8_t kind, uint32_t id, uint32_t op,
                                     uint32_t total, uint32_t offset, int32_t status,
                                     const char *name, const void *data, uint32_t len,
                                     int may_truncate)
{
    tc_frame_layout_t layout = {sizeof(tc_ried_args_t), 0, 0, 0};
    tc_frame_offsets_t off;
    tc_ried_args_t args;
    uint32_t room, needed;
    char *frame;

    (void)tc_frame_layout(&layout, UINT32_MAX, &off); /* where the payload goes */
    room = tc_peer_frame_room(peer, off.payload_off);
    if (len > room) {
        if (!may_truncate) {
            return TC_ERR_OUT_OF_RANGE;
        }
        len = room;
    }
    layout.payload_len = len;
    if (tc_frame_layout(&layout, peer->tx_slot_size, &off) != TC_OK) {
        return TC_ERR_OUT_OF_RANGE;
    }
    needed         = off.frame_size;
    off.frame_size = tc_peer_frame_size(peer, off.frame_size);
    if (off.frame_size == 0) {
        char advice[320];
        /* a ried is shipped to the peer, which answers in its own frames */
        tc_error("%s: %s needs %u-byte frames; %s", peer->wireup->name,
                 (kind == TC_KIND_RIED_REP) ? "the answer to the peer's ried" : "a ried frame",
                 needed, tc_peer_frame_advice(peer, needed, "the ried", advice, sizeof(advice)));
        return TC_ERR_OUT_OF_RANGE;
    }
    memset(&args, 0, sizeof(args));
    args.id     = id;
    args.op     = op;
    args.total  = total;
    args.offset = offset;
    args.status = status;
    snprintf(args.name, sizeof(args.name), "%s", name);
    frame = tc_peer_tx_frame(peer);
    tc_frame_write_hdr(frame, &off, &layout, kind, 0, 0, 0, peer->tx_seq);
    memcpy(frame + TC_FRAME_HDR_SIZE, &args, sizeof(args));
    memcpy(frame + off.payload_off, data, len);
    return tc_peer_send_frame(peer, frame);
}

/* Wait for the peer's answer about ried id. */
/* Wait for the peer's answer to our ried frames first_seq.. (a NACK for
 * any of them is the answer too: none other is coming). */
static tc_status_t tc_peer_ried_wait(tc_peer_t *peer, uint32_t first_seq)
{
    tc_status_t status = TC_OK;

    while ((status == TC_OK) && !peer->ried->tx.done) {
        status = tc_peer_call_wait(peer);
        if (status == TC_OK) {
            status = tc_ctrl_nack_for(peer, first_seq, peer->tx_seq - 1, "a ried frame");
        }
    }
    if (status == TC_ERR_OUT_OF_RANGE) { /* the NACK's words may not fit: said here */
        tc_peer_answer_refused(peer, "the answer to a ried frame", tc_ried_frame_size(0));
    }
    return status;
}

/* The library at path, in chunks of what one frame carries. */
static tc_status_t tc_ried_send_chunks(tc_peer_t *peer, uint32_t id, const char *name,
                                       const uint8_t *buf, uint32_t size)
{
    tc_frame_layout_t layout = {sizeof(tc_ried_args_t), 0, 0, 0};
    tc_frame_offsets_t off;
    uint32_t offset = 0, room, n;
    tc_status_t status = TC_OK;

    (void)tc_frame_layout(&layout, UINT32_MAX, &off);
    room = tc_peer_frame_room(peer, off.payload_off);
    if (room == 0) { /* not one byte of the library goes in a frame of ours */
        char advice[320];
        uint32_t needed = tc_ried_frame_size(1);

        tc_error("%s: ried '%s': a ried frame needs %u-byte frames; %s", peer->wireup->name, name,
                 needed, tc_peer_frame_advice(peer, needed, "the ried", advice, sizeof(advice)));
        return TC_ERR_OUT_OF_RANGE;
    }
    while ((status == TC_OK) && (offset < size)) {
        n = (size - offset < room) ? size - offset : room;
        if (tc_peer_tx_free(peer) == 0) {
            status = tc_credits_wait(peer);
        }
        if (status == TC_OK) {
            status = tc_peer_send_ried(peer, TC_KIND_RIED, id, TC_RIED_OP_CHUNK, size, offset, 0,
                                       name, buf + offset, n, 0);
        }
        offset += n;
    }
    return status;
}

/* The peer's export table for the caller: one name a line, each escaped
 * as a log line's peer text would be (the caller may print them). */
static void tc_ried_exports_copy(const char *text, char *exports, size_t exports_len)
{
    size_t used = 0, n;

    exports[0] = '\0';
    while ((*text != '\0') && (used + 1 < exports_len)) {
        if (used > 0) {
            exports[used++] = '\n';
        }
        n = strcspn(text, "\n");
        used += strlen(tc_log_text(text, n, exports + used, exports_len - used));
        text += n + (text[n] == '\n');
    }
}

tc_status_t tc_ried_ship(tc_peer_t *peer, const char *path, size_t exports_len,
                         char *exports, uint32_t *ried_id_p)
{
    const char *base = strrchr(path, '/');
    char name[TC_RIED_NAME_MAX], text[TC_LOG_TEXT_SIZE];
    uint32_t id, first_seq;
    tc_status_t status;
    uint8_t *buf;
    size_t size = 0;
    int began;

    base = (base != NULL) ? base + 1 : path;
    snprintf(name, sizeof(name), "%.*s", (int)strcspn(base, "."), base);
    buf = tc_read_file(path, &size);
    if ((buf == NULL) || (size == 0) || (size > TC_RIED_MAX_BYTES)) {
        tc_error("ried %s: %s", path, (buf == NULL) ? "cannot read it" :
                                      (size == 0)   ? "empty" : "over 64 MiB");
        free(buf);
        return (buf == NULL) ? TC_ERR_NOT_FOUND : TC_ERR_IO;
    }

    id                    = ++peer->ried->tx.next_id;
    peer->ried->tx.wait_id = id;
    peer->ried->tx.done    = 0;
    first_seq             = peer->tx_seq;
    began  = tc_peer_call_begin(peer, "tc_ried_ship"); /* the chunks' credits too */
    status = tc_ried_send_chunks(peer, id, name, buf, (uint32_t)size);
    free(buf);
    if (status == TC_OK) {
        status = tc_peer_ried_wait(peer, first_seq);
    }
    tc_peer_call_end(peer, began);
    if (status != TC_OK) {
        return status;
    }
    if (peer->ried->tx.status != 0) {
        tc_error("%s could not load ried %s: %s", peer->wireup->name, path,
                 tc_log_text(peer->ried->tx.text, sizeof(peer->ried->tx.text), text, sizeof(text)));
        /* no room (its table, or this side's share of it) is a limit, not a fault */
        return (peer->ried->tx.status == TC_ERR_NO_RESOURCE) ? TC_ERR_NO_RESOURCE : TC_ERR_IO;
    }
    if ((exports != NULL) && (exports_len > 0)) {
        tc_ried_exports_copy(peer->ried->tx.text, exports, exports_len);
    }
    *ried_id_p = id;
    return TC_OK;
}

tc_status_t tc_ried_unload(tc_peer_t *peer, uint32_t ried_id)
{
    char text[TC_LOG_TEXT_SIZE];
    uint32_t first_seq = peer->tx_seq;
    int began = tc_peer_call_begin(peer, "tc_ried_unload");
    tc_status_t status = TC_OK;

    peer->ried->tx.wait_id = ried_id;
    peer->ried->tx.done    = 0;
    if (tc_peer_tx_free(peer) == 0) {
        status = tc_credits_wait(peer);
    }
    if (status == TC_OK) {
        status = tc_peer_send_ried(peer, TC_KIND_RIED, ried_id, TC_RIED_OP_UNLOAD, 0, 0, 0, "",
                                   "", 0, 0);
    }
    if (status == TC_OK) {
        status = tc_peer_ried_wait(peer, first_seq);
    }
    tc_peer_call_end(peer, began);
    if ((status == TC_OK) && (peer->ried->tx.status != 0)) {
        tc_error("%s: unload of ried %u: %s", peer->wireup->name, ried_id,
                 tc_log_text(peer->ried->tx.text, sizeof(peer->ried->tx.text), text, sizeof(text)));
        /* the status says why (a peer that predates it answers -1) */
        status = (peer->ried->tx.status == TC_ERR_BUSY) ? TC_ERR_BUSY : TC_ERR_NOT_FOUND;
    }
    return status;
}

tc_status_t tc_peer_ried_alloc(tc_peer_t *peer)
{
    peer->ried = calloc(1, sizeof(*peer->ried));
    return (peer->ried != NULL) ? TC_OK : TC_ERR_NO_MEMORY;
}

void tc_peer_ried_free(tc_peer_t *peer)
{
    free(peer->ried->rx.buf);
    free(peer->ried);
}

tc_status_t tc_ried_send_answer(tc_peer_t *peer)
{
    tc_status_t status;
    const char *why;

    if (tc_peer_tx_free(peer) == 0) {
        return TC_OK; /* still pending */
    }
    why = tc_peer_answer_misfit(peer, tc_ried_frame_size(0), "the ried's answer", peer->reject->why,
                                sizeof(peer->reject->why));
    if (why != NULL) { /* our frames shrank since the ried frame was taken */
        status = tc_ctrl_nack_late(peer, peer->ried->rx.reply_seq, "ried frame", why);
        if (status != TC_OK) {
            return (status == TC_ERR_AGAIN) ? TC_OK : status; /* AGAIN: later */
        }
        peer->owed &= ~TC_OWED_RIED;
        return TC_OK;
    }
    status = tc_peer_send_ried(peer, TC_KIND_RIED_REP, peer->ried->rx.id, peer->ried->rx.reply_op,
                               0, 0, peer->ried->rx.reply_status, "", peer->ried->rx.reply_text,
                               (uint32_t)strlen(peer->ried->rx.reply_text), 1);
    peer->owed &= ~TC_OWED_RIED;
    return status;
}

static const tc_rx_kind_def_t tc_ried_rx_kinds[] = {
    {TC_KIND_RIED, tc_ried_rx_frame, 0},
    {TC_KIND_RIED_REP, tc_ried_rx_frame, 0},
};

tc_status_t tc_ried_rx_register(tc_context_t *ctx)
{
    return tc_rx_register_kinds(ctx, tc_ried_rx_kinds, TC_ARRAY_SIZE(tc_ried_rx_kinds), NULL,
                                TC_OWED_RIED, tc_ried_send_answer);
}
