"""Small file systems for the log-dir failure tests (issue 15), made by the
test and removed after it. They need root (mount, losetup); without it the
tests skip, and under CI=true fail (cluster_fixtures.missing_tool).

  * SmallTmpfs(path, size_mb): a tmpfs of that size at `path` (created);
    `resize(mb)` remounts it larger or smaller (space "returns" or goes).
  * FailingDisk(path, size_mb): ext4 on a loop device whose image is a
    sparse file on a tmpfs barely larger than the file system's metadata;
    `fail()` fills that backing tmpfs, so every write-back to the image from
    then on fails: ext4 reports it at the next fsync (the kernel's
    "critical space allocation error" surfaces as ENOSPC or EIO there),
    while writes into the page cache still succeed - the failed-fsync case
    of KIP-112 and of PostgreSQL's fsyncgate. `heal()` frees the space;
    `repair()` also checks and remounts the file system (ext4 may have
    turned it read-only).
Both are context managers; leaving unmounts (lazily, if a broker still holds
files) and detaches the loop device.
  * failing_disk: a pytest fixture, a FailingDisk under the test's tmp_path
    (a test module imports it by name).
"""

import os
import shutil
import subprocess

import pytest

from cluster_fixtures import missing_tool


def _run(*args):
    r = subprocess.run(list(args), capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: rc {r.returncode}: {r.stderr.strip()}")
    return r.stdout.strip()


def require_root_mounts():
    """Skips (fails under CI=true) unless this process can mount and use loop devices."""
    if os.geteuid() != 0:
        missing_tool("root (mount, losetup) for the log-dir failure tests")
    for tool in ("mount", "umount", "losetup", "mkfs.ext4"):
        if shutil.which(tool) is None:
            missing_tool(tool)


class SmallTmpfs:
    def __init__(self, path, size_mb):
        self.path = path
        os.makedirs(path, exist_ok=True)
        _run("mount", "-t", "tmpfs", "-o", f"size={size_mb}m", "tmpfs", path)
        self.mounted = True

    def resize(self, size_mb):
        _run("mount", "-o", f"remount,size={size_mb}m", self.path)

    def free_bytes(self):
        st = os.statvfs(self.path)
        return st.f_bavail * st.f_frsize

    def close(self):
        if self.mounted:
            subprocess.run(["umount", "-l", self.path], capture_output=True, timeout=60)
            self.mounted = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class FailingDisk:
    IMAGE_MB = 64

    def __init__(self, path):
        self.path = path  # the ext4 mount point
        self.backing = SmallTmpfs(path + ".backing", self.IMAGE_MB + 8)
        self.loop = None
        try:
            image = os.path.join(self.backing.path, "disk.img")
            with open(image, "wb") as f:
                f.truncate(self.IMAGE_MB << 20)
            _run("mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", image)
            self.loop = _run("losetup", "-f", "--show", image)
            os.makedirs(path, exist_ok=True)
            _run("mount", "-o", "errors=continue", self.loop, path)
        except Exception:
            self.close()
            raise

    def fail(self):
        """Fills the backing tmpfs: from now on write-back to the image fails."""
        filler = os.path.join(self.backing.path, "filler")
        with open(filler, "wb") as f:
            chunk = b"\0" * (1 << 20)
            try:
                while True:
                    f.write(chunk)
                    f.flush()
            except OSError:
                pass
        assert self.backing.free_bytes() < (1 << 20), "the backing tmpfs did not fill"

    def heal(self):
        try:
            os.unlink(os.path.join(self.backing.path, "filler"))
        except FileNotFoundError:
            pass

    def repair(self):
        """What an operator does once the device works again (nothing may use
        the mount): frees the space, unmounts, e2fsck -fy, mounts again."""
        self.heal()
        _run("umount", self.path)
        r = subprocess.run(["e2fsck", "-fy", self.loop], capture_output=True, text=True, timeout=120)
        assert r.returncode in (0, 1, 2), f"e2fsck: rc {r.returncode}: {r.stdout}{r.stderr}"
        _run("mount", "-o", "errors=continue", self.loop, self.path)

    def close(self):
        subprocess.run(["umount", "-l", self.path], capture_output=True, timeout=60)
        if self.loop:
            subprocess.run(["losetup", "-d", self.loop], capture_output=True, timeout=60)
            self.loop = None
        self.backing.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@pytest.fixture
def failing_disk(tmp_path):
    require_root_mounts()
    with FailingDisk(str(tmp_path / "disk")) as d:
        yield d
