/* Raw Fetch v4 pump: reads a whole partition as fast as the broker serves it
 * (no record parsing beyond batch headers). usage: fetchpump PORT TOPIC END_OFFSET */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static void put32(uint8_t *p, uint32_t v) { p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v; }
static void put64(uint8_t *p, uint64_t v) { put32(p, v >> 32); put32(p + 4, (uint32_t)v); }
static uint32_t get32(const uint8_t *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }
static uint64_t get64(const uint8_t *p) { return (uint64_t)get32(p) << 32 | get32(p + 4); }
static int readn(int fd, uint8_t *b, size_t n) { size_t g = 0; while (g < n) { ssize_t r = read(fd, b + g, n - g); if (r <= 0) return -1; g += r; } return 0; }
int main(int argc, char **argv) {
  int port = atoi(argv[1]); const char *topic = argv[2]; int64_t end = atoll(argv[3]);
  int fd = socket(AF_INET, SOCK_STREAM, 0); struct sockaddr_in a = {0}; a.sin_family = AF_INET; a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK); if (connect(fd, (void *)&a, sizeof a)) { perror("connect"); return 1; }
  size_t cap = 64 << 20; uint8_t *buf = malloc(cap); uint8_t req[256];
  int64_t off = 0; uint64_t bytes = 0; double t0 = now(); int corr = 0;
  size_t tl = strlen(topic);
  while (off < end) {
    uint8_t *p = req + 4;
    p[0] = 0; p[1] = 1; p[2] = 0; p[3] = 4; p += 4; put32(p, ++corr); p += 4; p[0] = 0; p[1] = 4; memcpy(p + 2, "pump", 4); p += 6;
    put32(p, -1); put32(p + 4, 500); put32(p + 8, 1); put32(p + 12, 50 << 20); p += 16; *p++ = 0;
    put32(p, 1); p += 4; p[0] = tl >> 8; p[1] = tl; memcpy(p + 2, topic, tl); p += 2 + tl;
    put32(p, 1); put32(p + 4, 0); put64(p + 8, off); put32(p + 16, 10 << 20); p += 20;
    put32(req, (uint32_t)(p - req - 4));
    if (write(fd, req, p - req) != p - req) return 1;
    uint8_t hd[4]; if (readn(fd, hd, 4)) return 1; uint32_t n = get32(hd);
    if (n > cap) return 1; if (readn(fd, buf, n)) return 1;
    const uint8_t *q = buf + 4 + 4 + 4; uint16_t sl = q[0] << 8 | q[1]; q += 2 + sl; q += 4;  /* corr, throttle, ntopics, topic, nparts */
    q += 4 + 2 + 8 + 8; uint32_t na = get32(q); q += 4 + 16 * (na == 0xffffffff ? 0 : na);
    uint32_t rl = get32(q); q += 4; const uint8_t *r = q, *re = q + rl;
    while (r + 61 <= re) { uint32_t bl = get32(r + 8); if (r + 12 + bl > re) break; off = get64(r) + get32(r + 23) + 1; r += 12 + bl; }
    bytes += rl;
  }
  double dt = now() - t0;
  printf("pump bytes=%llu secs=%.3f MB_per_s=%.1f\n", (unsigned long long)bytes, dt, bytes / dt / 1e6);
  return 0;
}
