#include "storage/fs.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>

namespace spool::storage {
namespace {
std::atomic<FileSystem*> g_fs{nullptr};
}

int PosixFs::open(const char* path, int flags, mode_t mode) { return ::open(path, flags, mode); }
int PosixFs::close(int fd) { return ::close(fd); }
ssize_t PosixFs::pwrite(int fd, const void* data, size_t n, off_t pos) { return ::pwrite(fd, data, n, pos); }
int PosixFs::ftruncate(int fd, off_t length) { return ::ftruncate(fd, length); }
int PosixFs::truncate(const char* path, off_t length) { return ::truncate(path, length); }
int PosixFs::fallocate(int fd, int mode, off_t offset, off_t length) { return ::fallocate(fd, mode, offset, length); }
int PosixFs::fsync(int fd) { return ::fsync(fd); }
int PosixFs::fdatasync(int fd) { return ::fdatasync(fd); }
int PosixFs::syncfs(int fd) { return ::syncfs(fd); }
int PosixFs::rename(const char* from, const char* to) { return ::rename(from, to); }
int PosixFs::unlink(const char* path) { return ::unlink(path); }
int PosixFs::mkdir(const char* path, mode_t mode) { return ::mkdir(path, mode); }
int PosixFs::rmdir(const char* path) { return ::rmdir(path); }
void* PosixFs::mmap(size_t length, int prot, int flags, int fd) { return ::mmap(nullptr, length, prot, flags, fd, 0); }
int PosixFs::munmap(void* addr, size_t length) { return ::munmap(addr, length); }
int PosixFs::msync(void* addr, size_t length, int flags) { return ::msync(addr, length, flags); }

PosixFs& posix_fs() {
  static PosixFs f;
  return f;
}

FileSystem& fs() {
  FileSystem* f = g_fs.load(std::memory_order_acquire);
  return f != nullptr ? *f : posix_fs();
}

FileSystem* install_fs(FileSystem* f) {
  FileSystem* prev = g_fs.exchange(f, std::memory_order_acq_rel);
  return prev != nullptr ? prev : &posix_fs();
}

}  // namespace spool::storage
