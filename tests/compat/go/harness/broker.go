// Package harness starts, stops, kill -9s and restarts a real broker for the
// Go compatibility tests: `spool broker` ($SPOOL_BIN, default <repo>/build/spool)
// or, with SPOOL_TEST_PEER=kafka, Apache Kafka 4.4 through scripts/kafka-peer.
//
// Contract:
//   - A Broker owns one temp dir (its log dir) and one loopback port; both
//     survive Stop/Kill9 + Start, so a test can check recovery.
//   - Start waits until the port accepts TCP connections (spool: 30 s; the
//     peer script returns once Kafka serves clients). A broker that exits
//     before listening fails the test with its log; "address in use" on the
//     very first start picks a new port once.
//   - Stop sends SIGTERM (spool: SIGKILL after 15 s) and returns the exit
//     code; Restart and the cleanup registered by New fail the test unless
//     it is 0 (the clean-shutdown contract).
//   - Not safe for concurrent use: drive one Broker from one goroutine.
package harness

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const (
	spoolStartTimeout = 30 * time.Second
	spoolStopTimeout  = 15 * time.Second
	peerTimeout       = 180 * time.Second
	logTailBytes      = 20000
)

// DefaultOverrides are the broker settings every Go compat broker gets:
// no initial rebalance delay and few offsets/transaction-state partitions,
// so group and transaction tests are fast. Kafka keys, valid for the peer.
var DefaultOverrides = map[string]string{
	"group.initial.rebalance.delay.ms":     "0",
	"offsets.topic.num.partitions":         "3",
	"transaction.state.log.num.partitions": "3",
}

// Broker is one broker process (or Kafka peer) with its dir and port.
type Broker struct {
	Dir       string // log dir (spool) or peer dir (Kafka)
	Port      int
	Overrides map[string]string
	// ExtraListeners (NAME -> port on 127.0.0.1) and ListenerProtocols
	// (NAME -> security protocol, PLAINTEXT if absent): listeners after the
	// PLAINTEXT one on Port, all advertised (listeners.go).
	ExtraListeners    map[string]int
	ListenerProtocols map[string]string

	peer    bool
	workDir string
	cmd     *exec.Cmd
	done    chan struct{} // closed when cmd has exited (spool only)
	exitErr error
	starts  int
	logPath string
}

// Peer reports whether the tests run against the Apache Kafka peer.
func Peer() bool { return os.Getenv("SPOOL_TEST_PEER") == "kafka" }

// RepoRoot walks up from the working directory (go test runs in the package
// dir, tests/compat/go) to the folder holding tests/compat/go/go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "tests", "compat", "go", "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("repository root (with tests/compat/go/go.mod) not found above the working directory")
		}
		dir = parent
	}
}

// SpoolBin is $SPOOL_BIN or <repo>/build/spool.
func SpoolBin() (string, error) {
	if b := os.Getenv("SPOOL_BIN"); b != "" {
		return b, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "build", "spool"), nil
}

// FreePort asks the kernel for an unused loopback port.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func portAccepts(port int) bool {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// NewUnstarted makes a broker with its own temp dir and free port, not yet
// started. The caller owns Stop/Cleanup (used by TestMain for a shared broker).
func NewUnstarted(overrides map[string]string) (*Broker, error) {
	work, err := os.MkdirTemp("", "spool-go-compat-")
	if err != nil {
		return nil, err
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	all := map[string]string{}
	for k, v := range DefaultOverrides {
		all[k] = v
	}
	for k, v := range overrides {
		all[k] = v
	}
	b := &Broker{Dir: filepath.Join(work, "data"), Port: port, Overrides: all, peer: Peer(), workDir: work}
	if err := os.MkdirAll(b.Dir, 0o755); err != nil {
		return nil, err
	}
	return b, nil
}

// New starts a broker for one test and registers a cleanup that stops it,
// fails the test unless it exits 0, and removes its dir.
func New(t testing.TB, overrides map[string]string) *Broker {
	t.Helper()
	b := newForTest(t, overrides)
	if err := b.Start(); err != nil {
		t.Fatalf("%v", err)
	}
	return b
}

// newForTest makes an unstarted broker whose cleanup stops it, fails the
// test unless it exits 0 (logging its tail on failure), and removes its dir.
func newForTest(t testing.TB, overrides map[string]string) *Broker {
	t.Helper()
	b, err := NewUnstarted(overrides)
	if err != nil {
		t.Fatalf("harness: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("%v", err)
		}
		if t.Failed() {
			t.Logf("broker log (tail):\n%s", b.LogTail())
		}
		b.RemoveDir()
	})
	return b
}

// Bootstrap is "127.0.0.1:PORT".
func (b *Broker) Bootstrap() string { return fmt.Sprintf("127.0.0.1:%d", b.Port) }

// Start starts the broker (again, on the same dir and port after a stop).
func (b *Broker) Start() error {
	if b.peer {
		return b.startPeer()
	}
	return b.startSpool()
}

func (b *Broker) overrideArgs() []string {
	var kv []string
	for k, v := range b.Overrides {
		kv = append(kv, k+"="+v)
	}
	return kv
}

func (b *Broker) startSpool() error {
	if b.Alive() {
		return errors.New("harness: broker already running")
	}
	bin, err := SpoolBin()
	if err != nil {
		return err
	}
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("harness: spool binary not found at %s (set SPOOL_BIN): %v", bin, err)
	}
	b.starts++
	b.logPath = filepath.Join(b.workDir, fmt.Sprintf("broker.%d.log", b.starts))
	logf, err := os.Create(b.logPath)
	if err != nil {
		return err
	}
	args := append([]string{"broker"}, b.listenerArgs()...)
	args = append(args, "--override", "log.dirs="+b.Dir)
	for _, kv := range b.overrideArgs() {
		args = append(args, "--override", kv)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("harness: exec %s: %v", bin, err)
	}
	b.cmd = cmd
	b.done = make(chan struct{})
	go func() {
		b.exitErr = cmd.Wait()
		logf.Close()
		close(b.done)
	}()
	deadline := time.Now().Add(spoolStartTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-b.done:
			log := b.Log()
			if b.starts == 1 && strings.Contains(strings.ToLower(log), "in use") {
				if p, err := FreePort(); err == nil {
					b.Port, b.starts = p, 0
					return b.startSpool()
				}
			}
			return fmt.Errorf("harness: broker exited (%v) before listening on %d:\n%s", b.exitErr, b.Port, log)
		default:
		}
		if portAccepts(b.Port) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.Kill9()
	return fmt.Errorf("harness: broker did not accept on port %d within %v:\n%s", b.Port, spoolStartTimeout, b.LogTail())
}

func (b *Broker) peerScript(args ...string) ([]byte, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	script := filepath.Join(root, "scripts", "kafka-peer")
	if _, err := os.Stat(script); err != nil {
		return nil, fmt.Errorf("harness: SPOOL_TEST_PEER=kafka but %s is missing", script)
	}
	cmd := exec.Command(script, args...)
	cmd.Env = b.peerEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.Bytes(), err
	case <-time.After(peerTimeout):
		_ = cmd.Process.Kill()
		<-done
		return out.Bytes(), fmt.Errorf("harness: kafka-peer %s timed out after %v", args[0], peerTimeout)
	}
}

func (b *Broker) startPeer() error {
	b.starts++
	args := append([]string{"start", b.Dir, fmt.Sprint(b.Port)}, b.overrideArgs()...)
	out, err := b.peerScript(args...)
	if err != nil {
		if b.starts == 1 && strings.Contains(strings.ToLower(string(out)+b.Log()), "in use") {
			if p, perr := FreePort(); perr == nil {
				b.Port, b.starts = p, 0
				_, _ = b.peerScript("kill9", b.Dir)
				return b.startPeer()
			}
		}
		return fmt.Errorf("harness: kafka-peer start failed (%v):\n%s\n%s", err, out, b.LogTail())
	}
	b.logPath = filepath.Join(b.Dir, "kafka.log")
	return nil
}

// Alive reports whether the spool process is still running (the peer: its
// port accepts connections).
func (b *Broker) Alive() bool {
	if b.peer {
		return b.starts > 0 && portAccepts(b.Port)
	}
	if b.cmd == nil {
		return false
	}
	select {
	case <-b.done:
		return false
	default:
		return true
	}
}

// Stop sends SIGTERM and waits; it returns the exit code (-1 when it had to
// be killed or did not run).
func (b *Broker) Stop() int {
	if b.peer {
		if b.starts == 0 {
			return -1
		}
		if _, err := b.peerScript("stop", b.Dir); err != nil {
			return -1
		}
		return 0
	}
	if b.cmd == nil {
		return -1
	}
	select {
	case <-b.done:
	default:
		_ = b.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-b.done:
		case <-time.After(spoolStopTimeout):
			_ = b.cmd.Process.Kill()
			<-b.done
			b.cmd = nil
			return -1
		}
	}
	b.cmd = nil
	return exitCode(b.exitErr)
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return -1
}

// Kill9 sends SIGKILL and waits for the process to go.
func (b *Broker) Kill9() {
	if b.peer {
		if b.starts > 0 {
			_, _ = b.peerScript("kill9", b.Dir)
		}
		return
	}
	if b.cmd != nil {
		select {
		case <-b.done:
		default:
			_ = b.cmd.Process.Kill()
			<-b.done
		}
		b.cmd = nil
	}
}

// Restart stops cleanly (an error unless exit 0) and starts again on the
// same dir and port.
func (b *Broker) Restart() error {
	if rc := b.Stop(); rc != 0 {
		return fmt.Errorf("harness: broker exited %d on SIGTERM:\n%s", rc, b.LogTail())
	}
	return b.Start()
}

// Close stops a running broker and reports a non-zero exit or an earlier
// death as an error. Safe to call on a stopped broker.
func (b *Broker) Close() error {
	if b.peer {
		if b.starts == 0 {
			return nil
		}
		if !portAccepts(b.Port) {
			b.Kill9()
			return fmt.Errorf("harness: kafka peer was not serving at cleanup")
		}
		if rc := b.Stop(); rc != 0 {
			return fmt.Errorf("harness: kafka-peer stop failed:\n%s", b.LogTail())
		}
		return nil
	}
	if b.cmd == nil {
		return nil
	}
	died := !b.Alive()
	rc := b.Stop()
	if died {
		return fmt.Errorf("harness: broker died during the test (exit %d):\n%s", rc, b.LogTail())
	}
	if rc != 0 {
		return fmt.Errorf("harness: broker exited %d on SIGTERM:\n%s", rc, b.LogTail())
	}
	return nil
}

// RemoveDir deletes the broker's temp dir (call after Close).
func (b *Broker) RemoveDir() { _ = os.RemoveAll(b.workDir) }

// Log is the output of the latest start.
func (b *Broker) Log() string {
	if b.logPath == "" {
		return ""
	}
	data, _ := os.ReadFile(b.logPath)
	return string(data)
}

// LogTail is the last part of Log.
func (b *Broker) LogTail() string {
	l := b.Log()
	if len(l) > logTailBytes {
		return "...\n" + l[len(l)-logTailBytes:]
	}
	return l
}
