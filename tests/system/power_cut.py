"""Power cuts of a `spool broker` process (issue 16): the broker runs with
SPOOL_TEST_FAULT_FS=1 (its log dir on a fault-injecting file system,
broker/test_power_cut.h); SIGUSR2 makes it write the state its disk could
hold after losing power to `<log dir>.powercut` and die by SIGKILL; `cut`
then moves that tree over the log dir, ready for a restart."""

import os
import shutil
import signal


def fault_fs_env(seed):
    """Environment for a broker on the fault-injecting file system; `seed`
    decides which unsynced pages a cut keeps."""
    return {"SPOOL_TEST_FAULT_FS": "1", "SPOOL_TEST_POWER_CUT_SEED": str(seed)}


def cut(proc, data_dir, log_text):
    """Cuts the power of the broker process `proc` whose log dir is
    `data_dir`; log_text() gives its output (for failures). Returns the
    broker's one-line report of what the cut dropped."""
    proc.send_signal(signal.SIGUSR2)
    rc = proc.wait(60)
    out = log_text()
    assert rc == -signal.SIGKILL, f"broker exited {rc} on the power cut:\n{out[-3000:]}"
    assert "power cut (seed" in out, out[-3000:]
    staged = os.path.normpath(data_dir) + ".powercut"
    assert os.path.isdir(staged), f"no disk state at {staged}"
    shutil.rmtree(data_dir)
    os.rename(staged, data_dir)
    return out.rsplit("power cut (seed", 1)[1].splitlines()[0]
