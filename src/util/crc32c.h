// CRC-32C (Castagnoli), as used by Kafka record batch v2.
// Uses the SSE4.2 crc32 instruction when the CPU has it (checked once at
// start-up), otherwise a slicing-by-8 table. Pure function; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

#include "util/bytes.h"

namespace spool {

// Continues a CRC: pass the previous result as `crc` (0 to start).
uint32_t crc32c_extend(uint32_t crc, const uint8_t* data, size_t n);
inline uint32_t crc32c(const uint8_t* data, size_t n) { return crc32c_extend(0, data, n); }
inline uint32_t crc32c(ByteSpan s) { return crc32c_extend(0, s.data(), s.size()); }

// The portable path, exposed so tests can check both give the same answer.
uint32_t crc32c_extend_portable(uint32_t crc, const uint8_t* data, size_t n);
bool crc32c_hardware_available();

}  // namespace spool
