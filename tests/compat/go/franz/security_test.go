// franz-go (kgo, kadm, pkg/sasl) over SASL_PLAINTEXT, SASL_SSL and SSL
// listeners, and mTLS principals (issue 17).
//
// One broker for TestFranzSecurity (its subtests share it) with the
// harness's PLAINTEXT listener (the tests' administrator: User:ANONYMOUS is a
// super user) and five more, all on Kafka's own keys:
//
//	SASLPLAIN  SASL_PLAINTEXT
//	SASLSSL    SASL_SSL
//	SSL        SSL, ssl.client.auth none
//	MTLS       SSL, listener.name.mtls.ssl.client.auth=required and
//	           listener.name.mtls.ssl.principal.mapping.rules=
//	           RULE:^CN=([^,]+),.*$/$1/L,DEFAULT
//	WRONGHOST  SSL, listener.name.wronghost.ssl.keystore.location: a
//	           CA-signed certificate for DNS:wrong.example only
//
// sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512 with each SASL
// listener's plain.sasl.jaas.config (user_admin) and
// scram-sha-256/512.sasl.jaas.config (ScramLoginModule); the global
// ssl.keystore.type=PEM / ssl.keystore.location (key + chain) and
// ssl.truststore.type=PEM / ssl.truststore.location (the CA) of
// tests/compat/py/tls_certs.py (a fresh throw-away CA per run);
// authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
// and super.users=User:ANONYMOUS;User:admin. The SCRAM credentials of admin
// (one password per mechanism) are made with kadm's AlterUserSCRAMs over
// PLAINTEXT. Then:
//
//   - every mechanism on SASL_PLAINTEXT and on SASL_SSL round-trips exact
//     records (harness.CheckExact, one value of 300 KB spanning many TLS
//     records) and fails with SASL_AUTHENTICATION_FAILED for a wrong
//     password and for an unknown user;
//   - SSL round-trips; a tls.Config trusting only another CA fails with
//     x509's unknown authority; on WRONGHOST the default server name check
//     (127.0.0.1) fails with x509's hostname error, ServerName wrong.example
//     connects;
//   - MTLS with client-1's certificate (CN=client-1,OU=eng,O=Spool,C=NO) is
//     User:client-1: TOPIC_AUTHORIZATION_FAILED with no ACL and with ACLs for
//     the whole DN, an exact round trip once User:client-1 has them; without
//     a client certificate, or with one from another CA, no request is
//     served.
//
// ACLs apply asynchronously on the Kafka peer, so the test waits until
// DescribeACLs lists what it granted before relying on it.
package franz

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/spool/compat-go/harness"
)

const (
	secRecords   = 200              // records per round trip, plus one of secBigValue bytes
	secBigValue  = 300_000          // spans many TLS records
	secLogin     = 15 * time.Second // bound on one login attempt
	secACLWait   = 30 * time.Second // bound on ACLs to show up in DescribeACLs
	client1DN    = "CN=client-1,OU=eng,O=Spool,C=NO"
	mappingRules = "RULE:^CN=([^,]+),.*$/$1/L,DEFAULT"
	jaasScram    = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
)

// PLAIN users (JAAS) and admin's SCRAM password per mechanism.
var (
	plainUsers     = map[string]string{"admin": "admin-plain-secret"}
	scramPasswords = map[string]string{"SCRAM-SHA-256": "admin-256,=secret", "SCRAM-SHA-512": "admin-512=,secret"}
	secMechanisms  = []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}
	secListeners   = map[string]string{
		"SASLPLAIN": "SASL_PLAINTEXT",
		"SASLSSL":   "SASL_SSL",
		"SSL":       "SSL",
		"MTLS":      "SSL",
		"WRONGHOST": "SSL",
	}
)

// tlsFiles are the paths tls_certs.py writes (see its docstring).
type tlsFiles struct{ dir string }

func (f tlsFiles) path(name string) string { return filepath.Join(f.dir, name) }

func makeCerts(t *testing.T) tlsFiles {
	t.Helper()
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out, err := exec.Command("python3", filepath.Join(root, "tests", "compat", "py", "tls_certs.py"), dir).CombinedOutput()
	if err != nil {
		t.Fatalf("tls_certs.py: %v\n%s", err, out)
	}
	return tlsFiles{dir}
}

func jaasPlain() string {
	var b strings.Builder
	b.WriteString("org.apache.kafka.common.security.plain.PlainLoginModule required")
	fmt.Fprintf(&b, " user_admin=\"%s\"", plainUsers["admin"])
	b.WriteString(";")
	return b.String()
}

func securityOverrides(f tlsFiles) map[string]string {
	o := map[string]string{
		"sasl.enabled.mechanisms":                        "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
		"ssl.keystore.type":                              "PEM",
		"ssl.keystore.location":                          f.path("server-keystore.pem"),
		"ssl.truststore.type":                            "PEM",
		"ssl.truststore.location":                        f.path("ca.pem"),
		"listener.name.mtls.ssl.client.auth":             "required",
		"listener.name.mtls.ssl.principal.mapping.rules": mappingRules,
		"listener.name.wronghost.ssl.keystore.location":  f.path("wrong-host-keystore.pem"),
		"authorizer.class.name":                          "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
		"super.users":                                    "User:ANONYMOUS;User:admin",
	}
	for _, l := range []string{"saslplain", "saslssl"} {
		o["listener.name."+l+".plain.sasl.jaas.config"] = jaasPlain()
		o["listener.name."+l+".scram-sha-256.sasl.jaas.config"] = jaasScram
		o["listener.name."+l+".scram-sha-512.sasl.jaas.config"] = jaasScram
	}
	return o
}

// tlsConfig trusts the PEM CA file ca; certKey names a client certificate
// and key (without extension, e.g. "client-1") or is empty.
func tlsConfig(t testing.TB, f tlsFiles, ca, certKey string) *tls.Config {
	t.Helper()
	pem, err := os.ReadFile(f.path(ca))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("no certificate in %s", ca)
	}
	c := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if certKey != "" {
		kp, err := tls.LoadX509KeyPair(f.path(certKey+".pem"), f.path(certKey+".key"))
		if err != nil {
			t.Fatalf("client key pair %s: %v", certKey, err)
		}
		c.Certificates = []tls.Certificate{kp}
	}
	return c
}

func mechanism(name, user, password string) sasl.Mechanism {
	switch name {
	case "PLAIN":
		return plain.Auth{User: user, Pass: password}.AsMechanism()
	case "SCRAM-SHA-256":
		return scram.Auth{User: user, Pass: password}.AsSha256Mechanism()
	case "SCRAM-SHA-512":
		return scram.Auth{User: user, Pass: password}.AsSha512Mechanism()
	}
	panic("unknown mechanism " + name)
}

func adminPassword(mech string) string {
	if mech == "PLAIN" {
		return plainUsers["admin"]
	}
	return scramPasswords[mech]
}

// login pings the broker (a Metadata request) with opts once and returns
// the error (nil: served).
func login(t testing.TB, bootstrap string, opts ...kgo.Opt) error {
	t.Helper()
	cl := newClient(t, bootstrap, append([]kgo.Opt{kgo.RetryTimeout(secLogin)}, opts...)...)
	ctx, cancel := context.WithTimeout(context.Background(), secLogin)
	defer cancel()
	err := cl.Ping(ctx)
	cl.Close()
	return err
}

// secRoundTrip creates a topic of two partitions over PLAINTEXT (unless
// topic is given), produces secRecords records and one big one with opts
// (idempotent, acks=all) and reads them back from the start with opts:
// exactly what was produced.
func secRoundTrip(t *testing.T, b *harness.Broker, adm *kadm.Client, rng *rand.Rand, bootstrap, topic string, opts ...kgo.Opt) {
	t.Helper()
	if topic == "" {
		topic = harness.Topic(t, rng, "t")
		createTopic(t, adm, topic, 2, nil)
	}
	recs := records(rng, topic, "sec", secRecords, 2, 0)
	big := make([]byte, secBigValue)
	rng.Read(big)
	recs = append(recs, &kgo.Record{Topic: topic, Partition: 1, Key: []byte("big"), Value: big})
	prod := newClient(t, bootstrap, append([]kgo.Opt{
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchMaxBytes(1 << 20)}, opts...)...)
	want := produceSync(t, prod, recs)
	prod.Close()
	got := consumeFromStart(t, bootstrap, topic, len(want), append([]kgo.Opt{kgo.FetchMaxBytes(1 << 20)}, opts...)...)
	harness.CheckExact(t, want, gots(got, "reader"))
}

func createSCRAMs(t *testing.T, adm *kadm.Client) {
	t.Helper()
	for _, m := range []struct {
		name string
		mech kadm.ScramMechanism
	}{{"SCRAM-SHA-256", kadm.ScramSha256}, {"SCRAM-SHA-512", kadm.ScramSha512}} {
		// One request per mechanism: kadm keys the results by user.
		res, err := adm.AlterUserSCRAMs(harness.Ctx(t, 30*time.Second), nil,
			[]kadm.UpsertSCRAM{{User: "admin", Mechanism: m.mech, Iterations: 8192, Password: scramPasswords[m.name]}})
		if err != nil {
			t.Fatalf("AlterUserSCRAMs %s: %v", m.name, err)
		}
		if r, ok := res["admin"]; !ok || r.Err != nil {
			t.Fatalf("AlterUserSCRAMs %s: %+v", m.name, res)
		}
	}
	// Both are listed before a client relies on them (the peer applies them
	// through its metadata log).
	if !harness.WaitFor(secACLWait, func() bool {
		d, err := adm.DescribeUserSCRAMs(harness.Ctx(t, 10*time.Second), "admin")
		return err == nil && d["admin"].Err == nil && len(d["admin"].CredInfos) == 2
	}) {
		d, err := adm.DescribeUserSCRAMs(harness.Ctx(t, 10*time.Second), "admin")
		t.Fatalf("admin's SCRAM credentials not listed after %v: %+v %v", secACLWait, d, err)
	}
}

// grantTopic allows principal READ, WRITE and DESCRIBE on topic and waits
// until DescribeACLs lists the three.
func grantTopic(t *testing.T, adm *kadm.Client, principal, topic string) {
	t.Helper()
	ops := []kadm.ACLOperation{kadm.OpRead, kadm.OpWrite, kadm.OpDescribe}
	acl := kadm.NewACLs().Allow(principal).AllowHosts("*").Topics(topic).
		ResourcePatternType(kadm.ACLPatternLiteral).Operations(ops...)
	res, err := adm.CreateACLs(harness.Ctx(t, 30*time.Second), acl)
	if err != nil {
		t.Fatalf("CreateACLs: %v", err)
	}
	for _, r := range res {
		if r.Err != nil {
			t.Fatalf("CreateACLs %s %v: %v %s", r.Principal, r.Operation, r.Err, r.ErrMessage)
		}
	}
	filter := kadm.NewACLs().Allow(principal).AllowHosts("*").Topics(topic).
		ResourcePatternType(kadm.ACLPatternLiteral).Operations(kadm.OpAny)
	var listed []string
	ok := harness.WaitFor(secACLWait, func() bool {
		d, err := adm.DescribeACLs(harness.Ctx(t, 10*time.Second), filter)
		if err != nil {
			return false
		}
		have := map[kadm.ACLOperation]bool{}
		listed = listed[:0]
		for _, r := range d {
			for _, a := range r.Described {
				listed = append(listed, fmt.Sprintf("%s %s %v", a.Principal, a.Name, a.Operation))
				if a.Principal == principal && a.Name == topic && a.Permission == kmsg.ACLPermissionTypeAllow {
					have[a.Operation] = true
				}
			}
		}
		for _, op := range ops {
			if !have[op] {
				return false
			}
		}
		return true
	})
	if !ok {
		t.Fatalf("ACLs for %s on %s not listed after %v (listed: %v)", principal, topic, secACLWait, listed)
	}
}

// produceOne produces one record with opts and returns its error.
func produceOne(t *testing.T, bootstrap, topic string, opts ...kgo.Opt) error {
	t.Helper()
	cl := newClient(t, bootstrap, append([]kgo.Opt{kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.RecordDeliveryTimeout(20 * time.Second)}, opts...)...)
	defer cl.Close()
	return cl.ProduceSync(harness.Ctx(t, 30*time.Second), &kgo.Record{Topic: topic, Value: []byte("x")}).FirstErr()
}

func TestFranzSecurity(t *testing.T) {
	certs := makeCerts(t)
	b := harness.NewWithListeners(t, securityOverrides(certs), secListeners)
	adm := newAdmin(t, b.Bootstrap())
	rng := harness.Rand(t)
	createSCRAMs(t, adm)

	for _, listener := range []string{"SASLPLAIN", "SASLSSL"} {
		proto := secListeners[listener]
		for _, mech := range secMechanisms {
			t.Run(proto+"/"+mech, func(t *testing.T) {
				bootstrap := b.ListenerAddr(listener)
				var tlsOpt []kgo.Opt
				if proto == "SASL_SSL" {
					tlsOpt = []kgo.Opt{kgo.DialTLSConfig(tlsConfig(t, certs, "ca.pem", ""))}
				}
				withSASL := func(user, password string) []kgo.Opt {
					return append([]kgo.Opt{kgo.SASL(mechanism(mech, user, password))}, tlsOpt...)
				}
				secRoundTrip(t, b, adm, rng, bootstrap, "", withSASL("admin", adminPassword(mech))...)
				for _, bad := range []struct{ user, password string }{
					{"admin", "wrong-password"},
					{"nobody", adminPassword(mech)},
				} {
					err := login(t, bootstrap, withSASL(bad.user, bad.password)...)
					if !errors.Is(err, kerr.SaslAuthenticationFailed) {
						t.Fatalf("%s as %s/%s: got %v, want SASL_AUTHENTICATION_FAILED", mech, bad.user, bad.password, err)
					}
				}
			})
		}
	}

	t.Run("SSL/round_trip", func(t *testing.T) {
		secRoundTrip(t, b, adm, rng, b.ListenerAddr("SSL"), "",
			kgo.DialTLSConfig(tlsConfig(t, certs, "ca.pem", "")))
	})

	t.Run("SSL/untrusted_server_certificate", func(t *testing.T) {
		// The CA of the PEM trust store signs the server: trusting only
		// another CA fails the handshake in the client.
		err := login(t, b.ListenerAddr("SSL"), kgo.DialTLSConfig(tlsConfig(t, certs, "other-ca.pem", "")))
		var ua x509.UnknownAuthorityError
		if !errors.As(err, &ua) {
			t.Fatalf("got %v (%T), want x509.UnknownAuthorityError", err, err)
		}
	})

	t.Run("SSL/server_name_mismatch", func(t *testing.T) {
		addr := b.ListenerAddr("WRONGHOST")
		// kgo checks the dialed host (127.0.0.1); the certificate names only
		// DNS:wrong.example.
		err := login(t, addr, kgo.DialTLSConfig(tlsConfig(t, certs, "ca.pem", "")))
		var he x509.HostnameError
		if !errors.As(err, &he) {
			t.Fatalf("got %v (%T), want x509.HostnameError", err, err)
		}
		// Signed by the trusted CA: with the name it has, it connects.
		c := tlsConfig(t, certs, "ca.pem", "")
		c.ServerName = "wrong.example"
		if err := login(t, addr, kgo.DialTLSConfig(c)); err != nil {
			t.Fatalf("with ServerName wrong.example: %v", err)
		}
	})

	t.Run("MTLS/principal_from_the_mapping_rules", func(t *testing.T) {
		addr := b.ListenerAddr("MTLS")
		topic := harness.Topic(t, rng, "t")
		createTopic(t, adm, topic, 2, nil)
		client1 := kgo.DialTLSConfig(tlsConfig(t, certs, "ca.pem", "client-1"))
		// Authenticated (metadata is served), but User:client-1 has no ACL.
		if err := login(t, addr, client1); err != nil {
			t.Fatalf("client-1 login: %v", err)
		}
		if err := produceOne(t, addr, topic, client1); !errors.Is(err, kerr.TopicAuthorizationFailed) {
			t.Fatalf("produce before any grant: got %v, want TOPIC_AUTHORIZATION_FAILED", err)
		}
		// The whole subject DN (what DEFAULT alone would make) is not the
		// principal on MTLS: its ACLs do not apply.
		grantTopic(t, adm, "User:"+client1DN, topic)
		if err := produceOne(t, addr, topic, client1); !errors.Is(err, kerr.TopicAuthorizationFailed) {
			t.Fatalf("produce with ACLs for User:%s only: got %v, want TOPIC_AUTHORIZATION_FAILED", client1DN, err)
		}
		grantTopic(t, adm, "User:client-1", topic)
		secRoundTrip(t, b, adm, rng, addr, topic, client1)
	})

	t.Run("MTLS/client_certificate_required", func(t *testing.T) {
		addr := b.ListenerAddr("MTLS")
		for _, c := range []struct{ what, certKey string }{
			{"no client certificate", ""},
			{"a client certificate from another CA", "other-client"},
		} {
			err := login(t, addr, kgo.DialTLSConfig(tlsConfig(t, certs, "ca.pem", c.certKey)))
			if err == nil {
				t.Fatalf("%s: served", c.what)
			}
			var kerrErr *kerr.Error
			if errors.As(err, &kerrErr) || errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("%s: got %v, want the connection refused by the broker", c.what, err)
			}
			t.Logf("%s: %v", c.what, err)
		}
	})
}
