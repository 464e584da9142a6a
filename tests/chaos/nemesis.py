"""The chaos runs' nemeses (issue 16): faults a run injects into a Spool
cluster (tests/system/cluster.py) behind a NetProxy (netproxy.py), one at a
time, each chosen and aimed by the run's seeded random generator.

Contract: `NEMESES[name](env)` where env has .cluster, .proxy, .rng and
.power_cut_broker (the one broker on the fault-injecting file system, or
None). `applicable(env)` says whether it makes sense on this cluster (no
broker partitions on one broker, no ZooKeeper fault without ZooKeeper).
`start()` injects the fault and returns a short description of its aim;
`heal()` undoes it and returns once the process or network is back (not
once the cluster has recovered: the run waits for that).

  kill         kill -9 of a random broker; heal restarts it
  pause        SIGSTOP of a random broker; heal sends SIGCONT
  power-cut    the power-cut broker loses power (unsynced pages dropped or
               torn, unsynced names undone); heal restarts it on what was left
  isolate      a random broker cut from every other broker (clients and
               ZooKeeper still reach it)
  client-cut   the clients cut from a random broker
  halves       the brokers and the clients split at random into two sides
  zk           ZooKeeper kill -9; heal restarts it
"""

import power_cut


class Nemesis:
    name = ""

    def __init__(self, env):
        self.env = env
        self.target = None

    def applicable(self):
        return True

    def _pick(self):
        self.target = self.env.rng.randrange(self.env.cluster.n)
        return self.target


class Kill(Nemesis):
    name = "kill"

    def start(self):
        self.env.cluster.kill9(self._pick())
        return f"broker {self.target}"

    def heal(self):
        b = self.env.cluster.broker(self.target)
        b.spawn()
        b.wait_port()


class Pause(Nemesis):
    name = "pause"

    def start(self):
        self.env.cluster.pause(self._pick())
        return f"broker {self.target}"

    def heal(self):
        self.env.cluster.resume(self.target)


class PowerCut(Kill):
    name = "power-cut"

    def applicable(self):
        return self.env.power_cut_broker is not None

    def start(self):
        self.target = self.env.power_cut_broker
        report = self.env.cluster.power_cut(self.target).split("; the disk's state is in")[0]
        return f"broker {self.target} (seed {report.strip()}"

    def heal(self):
        b = self.env.cluster.broker(self.target)
        b.env = power_cut.fault_fs_env(self.env.rng.randrange(2**31))  # the next cut's own seed
        super().heal()


class _Cut(Nemesis):
    def heal(self):
        self.env.proxy.heal()


class Isolate(_Cut):
    name = "isolate"

    def applicable(self):
        return self.env.cluster.n > 1

    def start(self):
        i = self._pick()
        self.env.proxy.cut([(f"b{i}", f"b{j}") for j in range(self.env.cluster.n) if j != i])
        return f"broker {i} from the other brokers"


class ClientCut(_Cut):
    name = "client-cut"

    def start(self):
        i = self._pick()
        self.env.proxy.cut([("client", f"b{i}")])
        return f"clients from broker {i}"


class Halves(_Cut):
    name = "halves"

    def applicable(self):
        return self.env.cluster.n > 1

    def start(self):
        nodes = ["client"] + [f"b{i}" for i in range(self.env.cluster.n)]
        rng = self.env.rng
        rng.shuffle(nodes)
        k = rng.randrange(1, len(nodes))
        a, b = sorted(nodes[:k]), sorted(nodes[k:])
        self.env.proxy.cut([(x, y) for x in a for y in b])
        return f"{'+'.join(a)} | {'+'.join(b)}"


class ZooKeeperKill(Nemesis):
    name = "zk"

    def applicable(self):
        return self.env.cluster.zk is not None

    def start(self):
        self.env.cluster.zk.kill9()
        return "zookeeper"

    def heal(self):
        self.env.cluster.zk.start()


NEMESES = {n.name: n for n in (Kill, Pause, PowerCut, Isolate, ClientCut, Halves, ZooKeeperKill)}
