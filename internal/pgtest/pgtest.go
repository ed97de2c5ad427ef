// Package pgtest starts throwaway PostgreSQL servers for tests: initdb and
// pg_ctl on a temporary directory, a free loopback port, the unix socket
// inside that directory, fsync off. One server serves a test package (see
// Main); each test gets a database of its own (see Database).
//
// initdb and pg_ctl refuse to run as root, so under root they run as the
// unprivileged user "postgres" (PARLEY_PG_USER overrides it), which the
// Debian packages create. Where PostgreSQL is not installed a test skips
// with the reason, except under CI (CI=true), where it fails: CI installs
// PostgreSQL (see .ci/run), so a missing server there is a broken set-up,
// not a reason to test less.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
)

// superuser is the role initdb creates; the server trusts loopback
// connections, so tests need no password.
const superuser = "parley"

// Server is a running throwaway PostgreSQL server.
type Server struct {
	dir    string // owns the data directory, the socket and the log
	bin    string
	port   int
	cred   *syscall.Credential // nil when not root
	admin  string              // URL of the maintenance database
	mu     sync.Mutex
	serial int
}

// ErrNotInstalled means no PostgreSQL binaries were found.
var ErrNotInstalled = errors.New("pgtest: PostgreSQL is not installed (no initdb found via pg_config --bindir, PARLEY_PG_BIN or /usr/lib/postgresql/*/bin)")

// binDir finds the directory of initdb and pg_ctl.
func binDir() (string, error) {
	var candidates []string
	if dir := os.Getenv("PARLEY_PG_BIN"); dir != "" {
		candidates = append(candidates, dir)
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		candidates = append(candidates, strings.TrimSpace(string(out)))
	}
	// Debian installs each major version under its own directory and
	// puts pg_config on the PATH only with the -dev package.
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(found, func(i, j int) bool { return version(found[i]) > version(found[j]) })
	candidates = append(candidates, found...)
	for _, dir := range candidates {
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
			return dir, nil
		}
	}
	return "", ErrNotInstalled
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// credential is who runs the server: nobody else than us unless we are
// root, which initdb refuses.
func credential() (*syscall.Credential, *user.User, error) {
	if os.Geteuid() != 0 {
		return nil, nil, nil
	}
	name := os.Getenv("PARLEY_PG_USER")
	if name == "" {
		name = "postgres"
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, nil, fmt.Errorf("pgtest: running as root, and initdb needs an unprivileged user: %w", err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, u, nil
}

// Start initialises and starts a server in a new temporary directory.
// Stop it with Stop.
func Start() (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	cred, _, err := credential()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "parley-pg-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	s := &Server{dir: dir, bin: bin, cred: cred}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("pgtest: %w", err)
		}
	}
	data := filepath.Join(dir, "data")
	if err := s.run("initdb", "-D", data, "-U", superuser, "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// The port is free when we ask; another process may take it before
	// the server binds it, so a failed start tries another.
	for attempt := 0; ; attempt++ {
		if s.port, err = freePort(); err != nil {
			break
		}
		opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off"+
			" -c full_page_writes=off -c shared_buffers=32MB -c max_connections=60", s.port, dir)
		if err = s.run("pg_ctl", "start", "-w", "-s", "-D", data, "-l", filepath.Join(dir, "server.log"), "-o", opts); err == nil || attempt == 2 {
			break
		}
	}
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w\n%s", err, log)
	}
	s.admin = s.url("postgres")
	return s, nil
}

// run runs a PostgreSQL program as the server's owner.
func (s *Server) run(name string, args ...string) error {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgtest: %s: %w\n%s", name, err, out)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) url(db string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", superuser, s.port, db)
}

// Stop stops the server at once and removes its directory.
func (s *Server) Stop() error {
	err := s.run("pg_ctl", "stop", "-s", "-m", "immediate", "-D", filepath.Join(s.dir, "data"))
	if rerr := os.RemoveAll(s.dir); err == nil {
		err = rerr
	}
	return err
}

// NewDatabase creates an empty database and returns its URL.
func (s *Server) NewDatabase(ctx context.Context) (string, error) {
	s.mu.Lock()
	s.serial++
	name := fmt.Sprintf("test_%d", s.serial)
	s.mu.Unlock()
	conn, err := pgx.Connect(ctx, s.admin)
	if err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("pgtest: create database: %w", err)
	}
	return s.url(name), nil
}

// DropDatabase drops a database made by NewDatabase, closing its
// connections.
func (s *Server) DropDatabase(ctx context.Context, url string) error {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, s.admin)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{cfg.Database}.Sanitize()+" WITH (FORCE)")
	return err
}

// shared is the server of the running test package, started on first use.
var shared struct {
	once   sync.Once
	server *Server
	err    error
}

// Main runs a test package's tests and stops its server, if one was
// started, after them. Call it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
func Main(m *testing.M) int {
	code := m.Run()
	if shared.server != nil {
		if err := shared.server.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	return code
}

// Database returns the URL of a new empty database on the package's
// server, dropped when the test ends. It skips the test where PostgreSQL is
// not installed, and fails it instead under CI.
func Database(t testing.TB) string {
	t.Helper()
	shared.once.Do(func() { shared.server, shared.err = Start() })
	if shared.err != nil {
		if errors.Is(shared.err, ErrNotInstalled) && os.Getenv("CI") != "true" {
			t.Skipf("%v; install PostgreSQL 15 (apt-get install postgresql-15) to run this test", shared.err)
		}
		t.Fatal(shared.err)
	}
	url, err := shared.server.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := shared.server.DropDatabase(context.Background(), url); err != nil {
			t.Error(err)
		}
	})
	return url
}
