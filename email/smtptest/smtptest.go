// Package smtptest runs a real SMTP server on a loopback port for tests:
// a relay that records what it accepts, or refuses what it is told to.
package smtptest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Message is one message the server accepted.
type Message struct {
	From string
	To   []string
	Data []byte
	// TLS and User say how the client came: over STARTTLS, as whom.
	TLS  bool
	User string
}

// Server is a recording SMTP server on 127.0.0.1.
type Server struct {
	// Addr is host:port of the server.
	Addr string

	mu       sync.Mutex
	messages []Message
	refuse   *smtp.SMTPError
	srv      *smtp.Server

	username, password string // required credentials ("" for none)
}

// New starts a server that stops when the test ends.
func New(t testing.TB) *Server { return start(t, nil, "", "") }

// NewTLS starts a server that offers STARTTLS with a self-signed
// certificate for 127.0.0.1 and takes only mail from a client that
// authenticated (AUTH PLAIN over TLS) with username and password. Roots
// trusts the certificate.
func NewTLS(t testing.TB, username, password string) (s *Server, roots *x509.CertPool) {
	t.Helper()
	cert, roots := selfSigned(t)
	return start(t, &tls.Config{Certificates: []tls.Certificate{cert}}, username, password), roots
}

func start(t testing.TB, cfg *tls.Config, username, password string) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Addr: ln.Addr().String(), username: username, password: password}
	s.srv = smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) { return &session{s: s, conn: c}, nil }))
	s.srv.Domain = "relay.test"
	s.srv.TLSConfig = cfg
	s.srv.AllowInsecureAuth = cfg == nil
	done := make(chan struct{})
	go func() { s.srv.Serve(ln); close(done) }()
	t.Cleanup(func() { s.srv.Close(); <-done })
	return s
}

// Refuse makes the server answer DATA with this reply from now on; nil
// accepts again.
func (s *Server) Refuse(err *smtp.SMTPError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = err
}

// Messages are the messages accepted so far, in order.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

type session struct {
	s    *Server
	conn *smtp.Conn
	user string
	from string
	to   []string
}

// AuthMechanisms offers AUTH PLAIN when the server has credentials.
func (x *session) AuthMechanisms() []string {
	if x.s.username == "" {
		return nil
	}
	return []string{sasl.Plain}
}

// Auth checks AUTH PLAIN credentials.
func (x *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, username, password string) error {
		if username != x.s.username || password != x.s.password {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "bad credentials"}
		}
		x.user = username
		return nil
	}), nil
}

func (x *session) Reset()        { x.from, x.to = "", nil }
func (x *session) Logout() error { return nil }

func (x *session) Mail(from string, _ *smtp.MailOptions) error {
	if x.s.username != "" && x.user == "" {
		return &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "authentication required"}
	}
	x.from = from
	return nil
}

func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	x.to = append(x.to, to)
	return nil
}

func (x *session) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	x.s.mu.Lock()
	defer x.s.mu.Unlock()
	if x.s.refuse != nil {
		return x.s.refuse
	}
	if x.from == "" || len(x.to) == 0 {
		return errors.New("smtptest: no envelope")
	}
	_, secure := x.conn.TLSConnectionState()
	x.s.messages = append(x.s.messages, Message{From: x.from, To: x.to, Data: data, TLS: secure, User: x.user})
	return nil
}

// selfSigned makes a certificate for 127.0.0.1 and a pool that trusts it.
func selfSigned(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "relay.test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, roots
}
