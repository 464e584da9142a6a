// Starts, stops (SIGTERM, exit 0 asserted), kill -9s and restarts one real
// broker for the Java compatibility tests: `$SPOOL_BIN broker` on a free
// loopback port with a temporary log dir, or, when SPOOL_TEST_PEER=kafka, the
// Apache Kafka 4.4 peer through `scripts/kafka-peer` with the same overrides.
// The same dir and port survive stop()/kill9() + start(), so tests can check
// recovery. start(overrides, listeners) adds more listeners (name -> security
// protocol, each on its own free port, advertised; KAFKA_PEER_EXTRA_LISTENERS
// for the peer). Not thread-safe: drive one TestBroker from one test thread.
package dev.spool.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

public final class TestBroker implements AutoCloseable {
  static final long START_TIMEOUT_MS = 20_000;
  static final long PEER_START_TIMEOUT_MS = 120_000;
  static final long STOP_TIMEOUT_MS = 10_000;
  static final int LOG_TAIL_CHARS = 20_000;

  private final Map<String, String> overrides;
  private final Map<String, String> listenerProtocols; // more listeners: name -> security protocol
  private final Map<String, Integer> listenerPorts = new LinkedHashMap<>();
  private final boolean peer;
  private final Path workDir;
  private final Path dataDir;
  private int port;
  private Process proc; // spool mode only
  private int starts;
  private boolean shouldRun; // started and not stopped or killed by the test

  private static final java.util.Set<TestBroker> OPEN = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** Brokers created and not yet closed. */
  static java.util.Set<TestBroker> open() {
    return java.util.Set.copyOf(OPEN);
  }

  private TestBroker(Map<String, String> overrides, Map<String, String> listenerProtocols) {
    this.overrides = new LinkedHashMap<>(overrides);
    this.listenerProtocols = new LinkedHashMap<>(listenerProtocols);
    this.peer = isKafkaPeer();
    try {
      this.workDir = Files.createTempDirectory(peer ? "spool-java-peer-" : "spool-java-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.dataDir = workDir.resolve(peer ? "kafka" : "data");
    pickPorts();
    OPEN.add(this);
  }

  private void pickPorts() {
    port = freePort();
    for (String name : listenerProtocols.keySet()) listenerPorts.put(name, freePort());
  }

  /** Starts a broker with Kafka-named overrides (key=value). */
  public static TestBroker start(Map<String, String> overrides) {
    return start(overrides, Map.of());
  }

  /**
   * Starts a broker with more listeners on 127.0.0.1 after the PLAINTEXT one,
   * each on a free port and advertised: `listeners` maps a listener name
   * (e.g. SASL) to its security protocol (SASL_PLAINTEXT, SSL, ...). Their
   * ssl./sasl. settings go into `overrides` (listener.name.&lt;name&gt;. ...).
   */
  public static TestBroker start(Map<String, String> overrides, Map<String, String> listeners) {
    TestBroker b = new TestBroker(overrides, listeners);
    try {
      b.start();
    } catch (RuntimeException | Error e) { // the message carries the output's tail
      b.kill9();
      OPEN.remove(b);
      deleteTree(b.workDir);
      throw e;
    }
    return b;
  }

  public static boolean isKafkaPeer() {
    return "kafka".equals(System.getenv("SPOOL_TEST_PEER"));
  }

  /** tests/compat/java: surefire passes it; user.dir is the same under Maven. */
  public static Path projectDir() {
    String d = System.getenv("SPOOL_COMPAT_PROJECT_DIR");
    return Path.of(d != null ? d : System.getProperty("user.dir")).toAbsolutePath();
  }

  public static Path repoRoot() {
    return projectDir().resolve("../../..").normalize();
  }

  static String spoolBin() {
    String b = System.getenv("SPOOL_BIN");
    return b != null && !b.isEmpty() ? b : repoRoot().resolve("build/spool").toString();
  }

  public String bootstrap() {
    return "127.0.0.1:" + port;
  }

  public int port() {
    return port;
  }

  /** host:port of one of the listeners given to start(overrides, listeners). */
  public String bootstrap(String listener) {
    return "127.0.0.1:" + port(listener);
  }

  public int port(String listener) {
    Integer p = listenerPorts.get(listener);
    if (p == null) throw new IllegalArgumentException("no listener " + listener + " in " + listenerPorts.keySet());
    return p;
  }

  /** listeners= of the extra listeners, "NAME://127.0.0.1:PORT,..." (empty if none). */
  private String extraListeners() {
    StringBuilder sb = new StringBuilder();
    listenerPorts.forEach((n, p) -> sb.append(sb.length() > 0 ? "," : "").append(n).append("://127.0.0.1:").append(p));
    return sb.toString();
  }

  public Path workDir() {
    return workDir;
  }

  public String name() {
    return peer ? "kafka-peer" : "spool";
  }

  public synchronized void start() {
    if (alive()) throw new IllegalStateException("broker already running");
    starts++;
    if (peer) startPeer();
    else startSpool(starts == 1);
    shouldRun = true;
  }

  private void startSpool(boolean mayRetryPort) {
    String bin = spoolBin();
    if (!new File(bin).canExecute()) {
      throw new AssertionError("spool binary not found at " + bin + " (set SPOOL_BIN)");
    }
    try {
      Files.createDirectories(dataDir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String extra = extraListeners();
    List<String> cmd = new ArrayList<>(List.of(bin, "broker",
        "--override", "listeners=PLAINTEXT://127.0.0.1:" + port + (extra.isEmpty() ? "" : "," + extra),
        "--override", "log.dirs=" + dataDir));
    if (!listenerProtocols.isEmpty()) {
      StringBuilder map = new StringBuilder("PLAINTEXT:PLAINTEXT");
      listenerProtocols.forEach((n, proto) -> map.append(',').append(n).append(':').append(proto));
      cmd.add("--override");
      cmd.add("listener.security.protocol.map=" + map);
    }
    overrides.forEach((k, v) -> {
      cmd.add("--override");
      cmd.add(k + "=" + v);
    });
    Path log = logPath(starts);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
    try {
      proc = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    while (System.nanoTime() < deadline) {
      if (!proc.isAlive()) {
        String out = read(log);
        if (mayRetryPort && out.toLowerCase().contains("in use")) {
          pickPorts(); // lost the race for a port: first start only
          startSpool(false);
          return;
        }
        throw new AssertionError("spool broker exited with " + proc.exitValue()
            + " before listening:\n" + tail(out));
      }
      if (portAccepts(port)) return;
      sleep(50);
    }
    proc.destroyForcibly();
    throw new AssertionError("spool broker did not accept on port " + port + " within "
        + START_TIMEOUT_MS + " ms:\n" + tail(read(log)));
  }

  private void startPeer() {
    List<String> cmd = new ArrayList<>(List.of(peerScript(), "start", dataDir.toString(),
        Integer.toString(port)));
    overrides.forEach((k, v) -> cmd.add(k + "=" + v));
    StringBuilder protos = new StringBuilder();
    listenerProtocols.forEach((n, proto) -> protos.append(protos.length() > 0 ? "," : "").append(n).append(':').append(proto));
    int rc = runScript(cmd, PEER_START_TIMEOUT_MS, logPath(starts), listenerProtocols.isEmpty() ? Map.of()
        : Map.of("KAFKA_PEER_EXTRA_LISTENERS", extraListeners(), "KAFKA_PEER_EXTRA_PROTOCOLS", protos.toString()));
    if (rc != 0) {
      throw new AssertionError("scripts/kafka-peer start exited " + rc + ":\n"
          + tail(read(logPath(starts))) + "\n" + tail(read(dataDir.resolve("kafka.log"))));
    }
    if (!portAccepts(port)) throw new AssertionError("kafka peer started but port " + port + " refuses");
  }

  private static String peerScript() {
    Path p = repoRoot().resolve("scripts/kafka-peer");
    if (!Files.isExecutable(p)) throw new AssertionError("SPOOL_TEST_PEER=kafka but " + p + " is missing");
    return p.toString();
  }

  /** SIGTERM and wait; returns the exit code (after a SIGKILL escalation: 137). */
  public synchronized int stop() {
    shouldRun = false;
    if (peer) {
      if (!peerAlive()) return 0;
      return runScript(List.of(peerScript(), "stop", dataDir.toString()),
          STOP_TIMEOUT_MS * 6, workDir.resolve("peer-stop." + starts + ".log"));
    }
    if (proc == null) return 0;
    if (proc.isAlive()) {
      proc.destroy(); // SIGTERM
      if (!waitFor(proc, STOP_TIMEOUT_MS)) {
        proc.destroyForcibly();
        waitFor(proc, STOP_TIMEOUT_MS);
        return 137;
      }
    }
    return proc.exitValue();
  }

  /** Clean stop; fails the test unless the broker exits 0. */
  public void stopClean() {
    int rc = stop();
    assertEquals(0, rc, name() + " exited " + rc + " on SIGTERM:\n" + logs());
  }

  public synchronized void kill9() {
    shouldRun = false;
    if (peer) {
      runScript(List.of(peerScript(), "kill9", dataDir.toString()), STOP_TIMEOUT_MS * 3,
          workDir.resolve("peer-kill9." + starts + ".log"));
      return;
    }
    if (proc != null && proc.isAlive()) {
      proc.destroyForcibly(); // SIGKILL
      waitFor(proc, STOP_TIMEOUT_MS);
    }
  }

  /** Clean stop (exit 0 asserted), then start on the same dir and port. */
  public void restart() {
    stopClean();
    start();
  }

  public synchronized boolean alive() {
    if (peer) return peerAlive();
    return proc != null && proc.isAlive();
  }

  private boolean peerAlive() {
    Path pidFile = dataDir.resolve("kafka.pid");
    try {
      if (!Files.exists(pidFile)) return false;
      long pid = Long.parseLong(Files.readString(pidFile).trim());
      return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    } catch (IOException | NumberFormatException e) {
      return false;
    }
  }

  /** Every start's output (the peer's kafka.log), tail-trimmed. */
  public String logs() {
    StringBuilder sb = new StringBuilder();
    for (int i = 1; i <= starts; i++) {
      sb.append("----- ").append(name()).append(" start #").append(i).append(" -----\n")
          .append(read(logPath(i))).append('\n');
    }
    if (peer) sb.append("----- kafka.log -----\n").append(read(dataDir.resolve("kafka.log")));
    return tail(sb.toString());
  }

  /**
   * Stops the broker if it runs, asserting exit 0, and removes its directory;
   * fails if the broker died on its own during the tests.
   */
  @Override
  public void close() {
    boolean died = shouldRun && !alive();
    boolean wasAlive = alive();
    int rc = wasAlive ? stop() : 0;
    String log = died || rc != 0 ? logs() : "";
    OPEN.remove(this);
    if (System.getenv("SPOOL_TEST_KEEP_DIRS") != null) System.out.println("[kept] " + name() + " dir " + workDir);
    else deleteTree(workDir);
    if (died) throw new AssertionError(name() + " died during the tests:\n" + log);
    assertEquals(0, rc, name() + " exited " + rc + " on SIGTERM:\n" + log);
  }

  private Path logPath(int start) {
    return workDir.resolve("broker." + start + ".log");
  }

  private int runScript(List<String> cmd, long timeoutMs, Path out) {
    return runScript(cmd, timeoutMs, out, Map.of());
  }

  private int runScript(List<String> cmd, long timeoutMs, Path out, Map<String, String> env) {
    try {
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
      pb.environment().putAll(env);
      Process p = pb.start();
      if (!waitFor(p, timeoutMs)) {
        p.destroyForcibly();
        throw new AssertionError(String.join(" ", cmd) + " did not finish within " + timeoutMs
            + " ms:\n" + tail(read(out)));
      }
      return p.exitValue();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static boolean portAccepts(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  static boolean waitFor(Process p, long ms) {
    try {
      return p.waitFor(ms, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  static String read(Path p) {
    try {
      return Files.exists(p) ? new String(Files.readAllBytes(p), StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      return "(cannot read " + p + ": " + e + ")";
    }
  }

  static String tail(String s) {
    return s.length() <= LOG_TAIL_CHARS ? s : "...\n" + s.substring(s.length() - LOG_TAIL_CHARS);
  }

  static void deleteTree(Path root) {
    if (!Files.exists(root)) return;
    try (Stream<Path> walk = Files.walk(root)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort: a temp dir left behind is not a test failure
    }
  }
}
