# SPDX-License-Identifier: Apache-2.0
"""A segment's header and a record's header, packed and read with the
layout proto/gen/gen_kinds.c generated at build time (offsets and formats
as the compiler laid out proto/caret_segment.h), for the tests that forge
segments or read a mapped one."""
import os
import struct

from harness import KIND_IDS
import caret_kinds  # noqa: E402  (on sys.path once harness is imported)


def pack_layout(layout, nbytes, /, **fields):
    """`nbytes` bytes holding the named fields of a generated layout
    (caret_kinds.SHM_HEADER, REC_HEADER: offsets and formats as the
    compiler laid out proto/caret_segment.h), the rest zero."""
    b = bytearray(nbytes)
    for name, v in fields.items():
        off, fmt = layout[name]
        struct.pack_into("<" + fmt, b, off, v)
    return bytes(b)


def seg_header(**fields):
    """A segment's header page: a valid header (this layout) of a WAIT agent
    (pid 4242, ours), with `fields` (struct caret_shm_header's names)
    instead."""
    h = dict(magic=caret_kinds.SHM_MAGIC, layout_version=caret_kinds.SHM_LAYOUT_VERSION,
             header_size=caret_kinds.SHM_HEADER_SIZE, capacity=1 << 20, pid=4242,
             uid=os.getuid(), start_time=1, procname=b"evil", distribution=b"jazzy",
             state=1)
    h.update(fields)
    return pack_layout(caret_kinds.SHM_HEADER, caret_kinds.SHM_HEADER_SIZE, **h)


def seg_field(buf, name):
    """A field of a segment's header read from buf (bytes or a mapping)."""
    off, fmt = caret_kinds.SHM_HEADER[name]
    return struct.unpack_from("<" + fmt, buf, off)[0]


def rec_header(kind, size, ts):
    """A record's header (struct caret_rec_hdr); kind by name or id."""
    return pack_layout(caret_kinds.REC_HEADER, caret_kinds.REC_HEADER_SIZE,
                       kind=KIND_IDS.get(kind, kind), size=size, init_timestamp=ts)
