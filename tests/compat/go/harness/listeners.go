// More listeners than the harness's PLAINTEXT one (SASL_PLAINTEXT, SSL,
// SASL_SSL... on their own loopback ports), as tests/compat/harness.py has
// them: spool gets them in `listeners` and `listener.security.protocol.map`,
// the Kafka peer through KAFKA_PEER_EXTRA_LISTENERS and
// KAFKA_PEER_EXTRA_PROTOCOLS (scripts/kafka-peer). Every listener is on
// 127.0.0.1 and advertised. A Broker without ExtraListeners starts exactly
// as before (one PLAINTEXT listener, the environment passed on unchanged).
package harness

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

// NewWithListeners is New with one more listener per entry of protocols
// (listener NAME -> security protocol), each on a free loopback port. A
// start that fails with "in use" (a port taken meanwhile) picks new ports for
// the extra listeners and tries once more.
func NewWithListeners(t testing.TB, overrides map[string]string, protocols map[string]string) *Broker {
	t.Helper()
	b := newForTest(t, overrides)
	b.ListenerProtocols = map[string]string{}
	for name, proto := range protocols {
		b.ListenerProtocols[name] = proto
	}
	if err := b.pickListenerPorts(); err != nil {
		t.Fatalf("harness: %v", err)
	}
	err := b.Start()
	if err != nil && strings.Contains(strings.ToLower(err.Error()+b.Log()), "in use") {
		b.Kill9()
		if perr := b.pickListenerPorts(); perr != nil {
			t.Fatalf("harness: %v", perr)
		}
		b.starts = 0
		err = b.Start()
	}
	if err != nil {
		t.Fatalf("%v", err)
	}
	return b
}

func (b *Broker) pickListenerPorts() error {
	b.ExtraListeners = map[string]int{}
	used := map[int]bool{b.Port: true}
	for _, name := range b.listenerNames() {
		for {
			p, err := FreePort()
			if err != nil {
				return err
			}
			if !used[p] {
				used[p] = true
				b.ExtraListeners[name] = p
				break
			}
		}
	}
	return nil
}

// listenerNames are the names of ListenerProtocols and ExtraListeners, sorted.
func (b *Broker) listenerNames() []string {
	seen := map[string]bool{}
	var names []string
	for n := range b.ListenerProtocols {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for n := range b.ExtraListeners {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// ListenerAddr is "127.0.0.1:PORT" of the extra listener name (the test fails
// to find it otherwise: an empty port).
func (b *Broker) ListenerAddr(name string) string {
	p, ok := b.ExtraListeners[name]
	if !ok {
		return fmt.Sprintf("no-listener-%s:0", name)
	}
	return fmt.Sprintf("127.0.0.1:%d", p)
}

func (b *Broker) protocolOf(name string) string {
	if p := b.ListenerProtocols[name]; p != "" {
		return p
	}
	return "PLAINTEXT"
}

// extraListenerList is "NAME://127.0.0.1:PORT,..." of the extra listeners.
func (b *Broker) extraListenerList() string {
	var ls []string
	for _, n := range b.listenerNames() {
		if p, ok := b.ExtraListeners[n]; ok {
			ls = append(ls, fmt.Sprintf("%s://127.0.0.1:%d", n, p))
		}
	}
	return strings.Join(ls, ",")
}

// listenerArgs are spool's --override arguments for its listeners.
func (b *Broker) listenerArgs() []string {
	listeners := fmt.Sprintf("PLAINTEXT://127.0.0.1:%d", b.Port)
	if len(b.ExtraListeners) == 0 {
		return []string{"--override", "listeners=" + listeners}
	}
	protocols := []string{"PLAINTEXT:PLAINTEXT"}
	for _, n := range b.listenerNames() {
		if _, ok := b.ExtraListeners[n]; ok {
			protocols = append(protocols, n+":"+b.protocolOf(n))
		}
	}
	return []string{
		"--override", "listeners=" + listeners + "," + b.extraListenerList(),
		"--override", "listener.security.protocol.map=" + strings.Join(protocols, ","),
	}
}

// peerEnv is the environment of scripts/kafka-peer: nil (this process's
// environment) without extra listeners, else that plus their description.
func (b *Broker) peerEnv() []string {
	if len(b.ExtraListeners) == 0 {
		return nil
	}
	var protos []string
	for _, n := range b.listenerNames() {
		if _, ok := b.ExtraListeners[n]; ok {
			protos = append(protos, n+":"+b.protocolOf(n))
		}
	}
	return append(os.Environ(),
		"KAFKA_PEER_EXTRA_LISTENERS="+b.extraListenerList(),
		"KAFKA_PEER_EXTRA_PROTOCOLS="+strings.Join(protos, ","))
}
