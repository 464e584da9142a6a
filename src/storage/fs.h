// The file-system seam: every call by which the storage engine changes what
// is on disk (create, write, truncate, allocate, map, sync, rename, remove)
// goes through fs(), so that a test can put a fault-injecting file system
// in its place (storage/fault_fs.h: power cuts, EIO, ENOSPC, short writes).
// Reads (pread, fstat, readdir) stay direct: they see the real files.
//
// Each method has the signature and the result of the POSIX call it is
// named after (-1 and errno on failure), so call sites read like the
// syscalls they replace. PosixFs is those syscalls and nothing else; one
// virtual call per operation is far below the cost of the syscall.
//
// Threading: fs() is read by every thread; install_fs() is for tests only
// and must be called while no storage object is in use (before opening logs
// and after closing them). The installed object must outlive its use.
#pragma once

#include <sys/types.h>

#include <string>

namespace spool::storage {

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  virtual int open(const char* path, int flags, mode_t mode) = 0;
  virtual int close(int fd) = 0;
  virtual ssize_t pwrite(int fd, const void* data, size_t n, off_t pos) = 0;
  virtual int ftruncate(int fd, off_t length) = 0;
  virtual int truncate(const char* path, off_t length) = 0;
  virtual int fallocate(int fd, int mode, off_t offset, off_t length) = 0;
  // fsync of a file or, opened with O_DIRECTORY, of a directory's entries.
  virtual int fsync(int fd) = 0;
  virtual int fdatasync(int fd) = 0;
  virtual int syncfs(int fd) = 0;
  virtual int rename(const char* from, const char* to) = 0;
  virtual int unlink(const char* path) = 0;
  virtual int mkdir(const char* path, mode_t mode) = 0;
  virtual int rmdir(const char* path) = 0;
  virtual void* mmap(size_t length, int prot, int flags, int fd) = 0;
  virtual int munmap(void* addr, size_t length) = 0;
  virtual int msync(void* addr, size_t length, int flags) = 0;
};

// The syscalls themselves.
class PosixFs : public FileSystem {
 public:
  int open(const char* path, int flags, mode_t mode) override;
  int close(int fd) override;
  ssize_t pwrite(int fd, const void* data, size_t n, off_t pos) override;
  int ftruncate(int fd, off_t length) override;
  int truncate(const char* path, off_t length) override;
  int fallocate(int fd, int mode, off_t offset, off_t length) override;
  int fsync(int fd) override;
  int fdatasync(int fd) override;
  int syncfs(int fd) override;
  int rename(const char* from, const char* to) override;
  int unlink(const char* path) override;
  int mkdir(const char* path, mode_t mode) override;
  int rmdir(const char* path) override;
  void* mmap(size_t length, int prot, int flags, int fd) override;
  int munmap(void* addr, size_t length) override;
  int msync(void* addr, size_t length, int flags) override;
};

FileSystem& fs();
PosixFs& posix_fs();
// Tests: makes `f` (nullptr: PosixFs) what fs() returns; returns the previous one.
FileSystem* install_fs(FileSystem* f);

}  // namespace spool::storage
