// Package smtptest runs a real SMTP server on a loopback port for tests:
// a relay that records what it accepts, or refuses what it is told to.
package smtptest

import (
	"errors"
	"io"
	"net"
	"sync"
	"testing"

	"github.com/emersion/go-smtp"
)

// Message is one message the server accepted.
type Message struct {
	From string
	To   []string
	Data []byte
}

// Server is a recording SMTP server on 127.0.0.1.
type Server struct {
	// Addr is host:port of the server.
	Addr string

	mu       sync.Mutex
	messages []Message
	refuse   *smtp.SMTPError
	srv      *smtp.Server
}

// New starts a server that stops when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Addr: ln.Addr().String()}
	s.srv = smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{s: s}, nil }))
	s.srv.Domain = "relay.test"
	s.srv.AllowInsecureAuth = true
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
	from string
	to   []string
}

func (x *session) Reset()        { x.from, x.to = "", nil }
func (x *session) Logout() error { return nil }

func (x *session) Mail(from string, _ *smtp.MailOptions) error {
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
	x.s.messages = append(x.s.messages, Message{From: x.from, To: x.to, Data: data})
	return nil
}
