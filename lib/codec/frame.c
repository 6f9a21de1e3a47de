/* Frame layout: encode and validate. Pure: no UCX, no runtime state. */
#include "frame.h"
#include "frame_line.h"
#include "log.h"
#include "blob.h"

#define TC_FRAME_GOT_ALIGN  8u
#define TC_FRAME_CODE_ALIGN 16u
#define TC_FRAME_USR_ALIGN  8u

static const char *const tc_frame_kind_names[TC_KIND_LAST] = {
    [0]                = "none",
    [TC_KIND_LOCAL]    = "local",
    [TC_KIND_INJECTED] = "injected",
    [TC_KIND_CACHED]   = "cached",
    [TC_KIND_REPLY]    = "reply",
    [TC_KIND_NOP]      = "nop",
    [TC_KIND_SYNC_REQ] = "sync-request",
    [TC_KIND_SYNC_REP] = "sync-reply",
    [TC_KIND_RIED]     = "ried",
    [TC_KIND_RIED_REP] = "ried-reply",
    [TC_KIND_MCAST]     = "mcast",
    [TC_KIND_MCAST_ACK] = "mcast-ack",
    [TC_KIND_CONFIG]    = "config",
    [TC_KIND_NACK]      = "nack",
    [TC_KIND_GOODBYE]   = "goodbye",
};

const char *tc_frame_kind_str(uint8_t kind)
{
    return (kind < TC_KIND_LAST) ? tc_frame_kind_names[kind] : "unknown";
}

/* 64-bit arithmetic so that hostile 32-bit fields cannot wrap. */
static uint64_t tc_frame_offsets_calc(uint64_t args_len, uint64_t got_count,
                                      uint64_t code_len, uint64_t payload_len,
                                      tc_frame_offsets_t *offsets)
{
    uint64_t args_off    = TC_FRAME_HDR_SIZE;
    /* A frame that carries code puts the image (GOTP + CODE) at a 64-byte
     * boundary: the blob keeps its sections' alignment relative to it, and
     * CODE sits at the same distance from GOTP as in the blob. */
    uint64_t got_off     = TC_ALIGN_UP(args_off + args_len,
                                       (got_count || code_len) ? TC_BLOB_IMAGE_ALIGN :
                                                                 TC_FRAME_GOT_ALIGN);
    uint64_t code_off    = TC_ALIGN_UP(got_off + got_count * 8, TC_FRAME_CODE_ALIGN);
    uint64_t payload_off = TC_ALIGN_UP(code_off + code_len, TC_FRAME_USR_ALIGN);
    uint64_t size        = TC_ALIGN_UP(payload_off + payload_len + TC_FRAME_SIG_SIZE,
                                       TC_FRAME_ALIGN);

    offsets->args_off    = (uint32_t)args_off;
    offsets->got_off     = (uint32_t)got_off;
    offsets->code_off    = (uint32_t)code_off;
    offsets->payload_off = (uint32_t)payload_off;
    offsets->frame_size  = (uint32_t)size;
    return size;
}

uint32_t tc_frame_size_for(uint32_t payload_len)
{
    tc_frame_offsets_t offsets;
    uint64_t size = tc_frame_offsets_calc(0, 0, 0, payload_len, &offsets);

    /* no frame can carry it: UINT32_MAX is not a multiple of 64, so
     * tc_peer_set_frame_size rejects it and any "<= slot_size" test fails */
    return (size > UINT32_MAX) ? UINT32_MAX : (uint32_t)size;
}

tc_status_t tc_frame_layout(const tc_frame_layout_t *layout, uint32_t max_size,
                            tc_frame_offsets_t *offsets_p)
{
    tc_frame_offsets_t offsets;
    uint64_t size;

    if ((layout->args_len > UINT16_MAX) || (layout->got_count > UINT16_MAX) ||
        (layout->code_len > UINT16_MAX)) {
        return TC_ERR_OUT_OF_RANGE;
    }

    size = tc_frame_offsets_calc(layout->args_len, layout->got_count,
                                 layout->code_len, layout->payload_len, &offsets);
    if ((size > max_size) || (offsets.payload_off > UINT16_MAX)) {
        return TC_ERR_OUT_OF_RANGE;
    }

    *offsets_p = offsets;
    return TC_OK;
}

void tc_frame_write_hdr(void *frame, const tc_frame_offsets_t *offsets,
                        const tc_frame_layout_t *layout, uint8_t kind,
                        uint8_t flags, uint32_t pkg_id, uint16_t element,
                        uint32_t seq)
{
    tc_frame_hdr_t *hdr = (tc_frame_hdr_t *)frame;

    hdr->frame_size  = offsets->frame_size;
    hdr->seq         = seq;
    hdr->pkg_id      = pkg_id;
    hdr->element     = element;
    hdr->kind        = kind;
    hdr->flags       = flags;
    hdr->ack         = 0;
    hdr->payload_len = layout->payload_len;
    hdr->payload_off = (uint16_t)offsets->payload_off;
    hdr->args_len    = (uint16_t)layout->args_len;
    hdr->got_count   = (uint16_t)layout->got_count;
    hdr->code_len    = (uint16_t)layout->code_len;
    hdr->ret         = 0;
    hdr->ret_seq     = 0;
    hdr->version     = TC_PROTO_VERSION;
    hdr->reserved    = 0;
    hdr->mag         = TC_FRAME_MAG;
}

/* every refusal of a frame is TC_ERR_BAD_FRAME, with its reason */
#define tc_frame_reject(_reason, _reason_len, ...) \
    tc_status_why((_reason), (_reason_len), TC_ERR_BAD_FRAME, __VA_ARGS__)

tc_status_t tc_frame_validate(const void *frame, const tc_frame_expect_t *expect,
                              char *reason, size_t reason_len)
{
    tc_frame_hdr_t hdr;

    /* One copy: a peer still writing cannot change what we checked. */
    memcpy(&hdr, frame, sizeof(hdr));
    return tc_frame_validate_hdr(&hdr, frame, expect, reason, reason_len);
}

/* The checks on a header copied out of the frame; line: it is the one a
 * line frame stands for (tc_frame_line_expand), whose payload sits right
 * after the line's 32-byte header. */
static tc_status_t tc_frame_check(const tc_frame_hdr_t *hdrp, const void *frame,
                                  const tc_frame_expect_t *expect, int line, char *reason,
                                  size_t reason_len)
{
    const tc_frame_hdr_t hdr = *hdrp;
    tc_frame_offsets_t offsets;
    uint64_t sig, end;
    int carries_code;

    if (hdr.mag != TC_FRAME_MAG) {
        return tc_frame_reject(reason, reason_len, "bad magic 0x%02x (expected 0x%02x)",
                               hdr.mag, TC_FRAME_MAG);
    }
    if (hdr.version != TC_PROTO_VERSION) {
        return tc_frame_reject(reason, reason_len,
                               "protocol version %u (this side speaks %u)",
                               hdr.version, TC_PROTO_VERSION);
    }
    if ((hdr.frame_size < TC_FRAME_MIN_SIZE) ||
        (hdr.frame_size % TC_FRAME_ALIGN) != 0) {
        return tc_frame_reject(reason, reason_len,
                               "frame size %u is not a positive multiple of %u",
                               hdr.frame_size, TC_FRAME_ALIGN);
    }
    if (hdr.frame_size > expect->slot_size) {
        return tc_frame_reject(reason, reason_len,
                               "frame size %u exceeds the slot (%u bytes)",
                               hdr.frame_size, expect->slot_size);
    }
    if ((expect->frame_size != 0) && (hdr.frame_size != expect->frame_size)) {
        return tc_frame_reject(reason, reason_len,
                               "frame size %u differs from the fixed size %u",
                               hdr.frame_size, expect->frame_size);
    }
    if (hdr.seq != expect->seq) {
        return tc_frame_reject(reason, reason_len,
                               "wrong sequence number %u (expected %u)",
                               hdr.seq, expect->seq);
    }
    sig = tc_frame_sig_read(frame, hdr.frame_size);
    if (sig != tc_frame_sig(hdr.seq)) {
        return tc_frame_reject(reason, reason_len,
                               "signal 0x%016llx does not match sequence %u",
                               (unsigned long long)sig, hdr.seq);
    }
    if ((hdr.kind == 0) || (hdr.kind >= TC_KIND_LAST)) {
        return tc_frame_reject(reason, reason_len, "unknown kind %u", hdr.kind);
    }
    if (hdr.flags & ~TC_FRAME_F_KNOWN) {
        return tc_frame_reject(reason, reason_len, "unknown flags 0x%02x", hdr.flags);
    }
    if ((hdr.flags & TC_FRAME_F_NO_RET) && (hdr.flags & TC_FRAME_F_WANT_REPLY)) {
        return tc_frame_reject(reason, reason_len, "flags 0x%02x ask for a reply and for no "
                               "result", hdr.flags);
    }

    end = tc_frame_offsets_calc(hdr.args_len, hdr.got_count, hdr.code_len,
                                hdr.payload_len, &offsets);
    if (line) {
        /* no sections (the expansion has none): the payload follows the
         * line's header */
        offsets.payload_off = TC_FRAME_LINE_HDR_SIZE;
        end = (uint64_t)TC_FRAME_LINE_HDR_SIZE + hdr.payload_len + TC_FRAME_SIG_SIZE;
    }
    if (hdr.payload_off != offsets.payload_off) {
        return tc_frame_reject(reason, reason_len,
                               "payload offset %u inconsistent with the layout (%u)",
                               hdr.payload_off, offsets.payload_off);
    }
    if (end > hdr.frame_size) {
        return tc_frame_reject(reason, reason_len,
                               "truncated: sections need %llu bytes, frame has %u",
                               (unsigned long long)end, hdr.frame_size);
    }
    /* code travels in injected frames, and in a sync request that asks the
     * receiver to cache it */
    carries_code = (hdr.kind == TC_KIND_INJECTED) ||
                   ((hdr.kind == TC_KIND_SYNC_REQ) && (hdr.flags & TC_FRAME_F_CACHE));
    if (!carries_code && ((hdr.got_count != 0) || (hdr.code_len != 0))) {
        return tc_frame_reject(reason, reason_len, "%s frame carries code",
                               tc_frame_kind_str(hdr.kind));
    }
    if (carries_code && (hdr.code_len == 0)) {
        return tc_frame_reject(reason, reason_len, "%s frame without code",
                               tc_frame_kind_str(hdr.kind));
    }
    if ((hdr.flags & TC_FRAME_F_CACHE) && (hdr.kind != TC_KIND_INJECTED) &&
        (hdr.kind != TC_KIND_SYNC_REQ)) {
        return tc_frame_reject(reason, reason_len, "%s frame asks to cache code",
                               tc_frame_kind_str(hdr.kind));
    }
    if (((hdr.kind == TC_KIND_RIED) || (hdr.kind == TC_KIND_RIED_REP)) &&
        (hdr.args_len != sizeof(tc_ried_args_t))) {
        return tc_frame_reject(reason, reason_len, "%s frame without its arguments",
                               tc_frame_kind_str(hdr.kind));
    }
    if ((hdr.kind == TC_KIND_LOCAL) || (hdr.kind == TC_KIND_INJECTED) ||
        (hdr.kind == TC_KIND_CACHED) || (hdr.kind == TC_KIND_SYNC_REQ) ||
        (hdr.kind == TC_KIND_MCAST)) {
        if ((expect->known != NULL) &&
            !expect->known(expect->known_arg, hdr.pkg_id, hdr.element, hdr.kind)) {
            return tc_frame_reject(reason, reason_len,
                                   "unknown element %u of package 0x%08x (%s)",
                                   hdr.element, hdr.pkg_id,
                                   tc_frame_kind_str(hdr.kind));
        }
    } else if (hdr.flags & TC_FRAME_F_WANT_REPLY) {
        return tc_frame_reject(reason, reason_len, "%s frame asks for a reply",
                               tc_frame_kind_str(hdr.kind));
    }

    return TC_OK;
}

tc_status_t tc_frame_validate_hdr(const tc_frame_hdr_t *hdr, const void *frame,
                                  const tc_frame_expect_t *expect, char *reason,
                                  size_t reason_len)
{
    return tc_frame_check(hdr, frame, expect, 0, reason, reason_len);
}

tc_status_t tc_frame_validate_line(const uint64_t w[TC_FRAME_LINE_WORDS], const void *frame,
                                   const tc_frame_expect_t *expect, tc_frame_hdr_t *hdr_p,
                                   char *reason, size_t reason_len)
{
    tc_frame_hdr_t hdr;
    tc_status_t status;

    tc_frame_line_expand(w, &hdr);
    if ((expect->frame_size != TC_FRAME_ALIGN) || (expect->slot_size < TC_FRAME_ALIGN)) {
        /* a line is read from its one line: where frames are another size
         * or variable, its signal is not where the receiver looks */
        return tc_frame_reject(reason, reason_len,
                               "line frame (seq %u), but this side takes lines only with "
                               "fixed %u-byte frames (its frames: %s %u bytes)",
                               hdr.seq, TC_FRAME_ALIGN,
                               (expect->frame_size != 0) ? "fixed" : "variable, up to",
                               (expect->frame_size != 0) ? expect->frame_size :
                                                           expect->slot_size);
    }
    if ((hdr.kind != TC_KIND_LOCAL) && (hdr.kind != TC_KIND_CACHED)) {
        return tc_frame_reject(reason, reason_len,
                               "line frame of kind %u (%s): lines carry only local and "
                               "cached jams", hdr.kind, tc_frame_kind_str(hdr.kind));
    }
    status = tc_frame_check(&hdr, frame, expect, 1, reason, reason_len);
    if (status == TC_OK) {
        *hdr_p = hdr;
    }
    return status;
}
