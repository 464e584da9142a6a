// Record-section compression codecs of record batch v2 (attributes bits 0-2).
//
// Formats are the ones Kafka clients put on the wire:
//   gzip   - RFC 1952 gzip members (a zlib stream is accepted too on input);
//   snappy - raw snappy blocks (librdkafka) or xerial framing (Java client:
//            "\x82SNAPPY\0", int32 version, int32 compatible version, then
//            int32-length-prefixed snappy blocks); output uses xerial framing
//            with 32 KiB blocks, which every client decodes;
//   lz4    - LZ4 frame format; output uses independent 64 KiB blocks without
//            checksums or content size, as Kafka's Java client expects;
//   zstd   - zstd frames, decoded as a stream because the content size is
//            optional in the frame header.
//
// Failure: corrupt or truncated input, and output that would exceed
// max_output (decompression bombs), fail with CORRUPT_MESSAGE (2). Memory use
// grows with the output actually produced and never exceeds max_output plus a
// small constant, so any input bytes are safe. Pure functions; thread-safe.
#pragma once

#include <cstddef>

#include "record/batch_header.h"
#include "util/bytes.h"
#include "util/status.h"

namespace spool::record {

// Human-readable codec name ("none", "gzip", "snappy", "lz4", "zstd").
const char* compression_name(Compression c);

// Decompresses `in` with codec `c`. kNone copies the input (still capped).
Result<Bytes> decompress(Compression c, ByteSpan in, size_t max_output);

// As above, but writes into `out` (cleared first) so callers can reuse a
// scratch buffer's capacity across batches.
Status decompress_into(Compression c, ByteSpan in, size_t max_output, Bytes& out);

// Compresses `in`. level -1 picks the codec default; otherwise gzip 1..9,
// lz4 0..12 (>= 3 selects HC), zstd 1..22; snappy ignores it.
Result<Bytes> compress(Compression c, ByteSpan in, int level = -1);

}  // namespace spool::record
