"""One writer per output folder: the same lock rfsim's C++ side takes (common/folder_lock.h).

An exclusive flock on "<folder>.lock", beside the folder, holding the holder's process id. The
operating system lets go of it when the process ends, however it ends; a normal release also
removes the file.
"""

import fcntl
import os
import time


class FolderBusy(Exception):
    """Another process holds the folder."""


def _holder(fd):
    for _ in range(50):  # the holder may not have written its id yet
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        if text:
            return text
        time.sleep(0.01)
    return "unknown"


class FolderLock:
    def __init__(self, folder):
        self.folder = folder.rstrip("/") or folder
        self.path = self.folder + ".lock"
        self.fd = None

    def acquire(self):
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pid = _holder(fd)
                os.close(fd)
                raise FolderBusy(f"{self.folder}: in use by process {pid} (it holds {self.path}); wait for it "
                                 "to finish or choose another --out")
            # A holder removes the file as it lets go: lock the file that is at the path now.
            try:
                if os.stat(self.path).st_ino == os.fstat(fd).st_ino:
                    break
            except FileNotFoundError:
                pass
            os.close(fd)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self.fd = fd
        return self

    def release(self):
        if self.fd is not None:
            try:
                os.unlink(self.path)
            except OSError:
                pass
            os.close(self.fd)
            self.fd = None

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()


def remove_stale(folder):
    """Removes <folder>.lock if no process holds it (its writer was killed before it could)."""
    path = folder.rstrip("/") + ".lock"
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if os.stat(path).st_ino == os.fstat(fd).st_ino:
            os.unlink(path)
    except OSError:
        pass  # held, or already gone
    finally:
        os.close(fd)
