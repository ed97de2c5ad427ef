// Package pgserver starts throwaway PostgreSQL servers: initdb and pg_ctl
// on a temporary directory, a free loopback port, the unix socket inside
// that directory. The tests (through internal/pgtest) and the bench's
// PostgreSQL peer (cmd/parley-bench) both start theirs here, each with its
// own settings; this package does not import testing, so a binary can use
// it.
//
// initdb and pg_ctl refuse to run as root, so under root they run as the
// unprivileged user "postgres" (PARLEY_PG_USER overrides it), which the
// Debian packages create.
package pgserver

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

	"github.com/jackc/pgx/v5"
)

// superuser is the role initdb creates; the server trusts loopback
// connections, so clients need no password.
const superuser = "parley"

// Server is a running throwaway PostgreSQL server.
type Server struct {
	dir    string // owns the data directory, the socket and the log
	bin    string
	port   int
	cred   *syscall.Credential // nil when not root
	admin  string              // URL of the maintenance database
	keep   bool                // StartIn's: Stop leaves the files
	mu     sync.Mutex
	serial int
}

// ErrNotInstalled means no PostgreSQL binaries were found.
var ErrNotInstalled = errors.New("pgserver: PostgreSQL is not installed (no initdb found via pg_config --bindir, PARLEY_PG_BIN or /usr/lib/postgresql/*/bin)")

// Required reports whether a missing PostgreSQL is an error rather than a
// reason to do without: under CI (CI=true), which installs it (see
// .ci/run), a missing server is a broken set-up, not a reason to test less.
func Required() bool { return os.Getenv("CI") == "true" }

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
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	name := os.Getenv("PARLEY_PG_USER")
	if name == "" {
		name = "postgres"
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("pgserver: running as root, and initdb needs an unprivileged user: %w", err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// Start initialises and starts a server in a new temporary directory,
// with settings ("name=value", passed as -c) on top of listening on
// loopback only. Stop it with Stop, which removes the directory.
func Start(settings ...string) (*Server, error) {
	dir, err := os.MkdirTemp("", "parley-pg-")
	if err != nil {
		return nil, fmt.Errorf("pgserver: %w", err)
	}
	s, err := startIn(dir, settings)
	if err != nil {
		os.RemoveAll(dir)
	}
	return s, err
}

// StartIn starts the server whose files are in dir, initialising them
// first when dir holds none, with settings as Start's. Stop stops it and
// leaves the files, so a later StartIn finds its databases again: the
// bench measures a database it loaded once across runs. Under root the
// server runs as another user (see credential), who must be able to reach
// dir through its parents.
func StartIn(dir string, settings ...string) (*Server, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("pgserver: %w", err)
	}
	s, err := startIn(dir, settings)
	if err == nil {
		s.keep = true
	}
	return s, err
}

func startIn(dir string, settings []string) (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	cred, err := credential()
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, bin: bin, cred: cred}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, fmt.Errorf("pgserver: %w", err)
		}
	}
	data := s.DataDir()
	if _, err := os.Stat(filepath.Join(data, "PG_VERSION")); errors.Is(err, os.ErrNotExist) {
		if err := s.run("initdb", "-D", data, "-U", superuser, "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"); err != nil {
			return nil, err
		}
	}
	if err := s.start(data, settings); err != nil {
		return nil, err
	}
	return s, nil
}

// start starts the server of the data directory on a free loopback port,
// with settings ("name=value", passed as -c).
func (s *Server) start(data string, settings []string) error {
	extra := ""
	for _, kv := range settings {
		extra += " -c " + kv
	}
	// The port is free when we ask; another process may take it before
	// the server binds it, so a failed start tries another.
	var err error
	for attempt := 0; ; attempt++ {
		if s.port, err = freePort(); err != nil {
			break
		}
		opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1%s", s.port, s.dir, extra)
		if err = s.run("pg_ctl", "start", "-w", "-s", "-D", data, "-l", filepath.Join(s.dir, "server.log"), "-o", opts); err == nil || attempt == 2 {
			break
		}
	}
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(s.dir, "server.log"))
		return fmt.Errorf("%w\n%s", err, log)
	}
	s.admin = s.URL("postgres")
	return nil
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
		return fmt.Errorf("pgserver: %s: %w\n%s", name, err, out)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgserver: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// URL is the address of database db on the server, over loopback TCP.
func (s *Server) URL(db string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", superuser, s.port, db)
}

// DataDir is the server's data directory, for measuring what it stores.
func (s *Server) DataDir() string { return filepath.Join(s.dir, "data") }

// Stop stops the server and removes its directory, at once; a server of
// StartIn is shut down cleanly and its files are kept.
func (s *Server) Stop() error {
	if s.keep {
		return s.run("pg_ctl", "stop", "-s", "-m", "fast", "-D", s.DataDir())
	}
	err := s.run("pg_ctl", "stop", "-s", "-m", "immediate", "-D", s.DataDir())
	if rerr := os.RemoveAll(s.dir); err == nil {
		err = rerr
	}
	return err
}

// Database returns the URL of the database called name, creating it when
// it does not exist; created says which.
func (s *Server) Database(ctx context.Context, name string) (url string, created bool, err error) {
	err = s.Admin(ctx, func(conn *pgx.Conn) error {
		var exists bool
		if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
			return err
		}
		if exists {
			return nil
		}
		created = true
		_, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
		return err
	})
	if err != nil {
		return "", false, fmt.Errorf("pgserver: database %s: %w", name, err)
	}
	return s.URL(name), created, nil
}

// NewDatabase creates an empty database with a generated name and returns
// its URL.
func (s *Server) NewDatabase(ctx context.Context) (string, error) {
	s.mu.Lock()
	s.serial++
	name := fmt.Sprintf("db_%d", s.serial)
	s.mu.Unlock()
	err := s.Admin(ctx, func(conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, "CREATE DATABASE "+name)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("pgserver: create database: %w", err)
	}
	return s.URL(name), nil
}

// DropDatabase drops a database made by NewDatabase, closing its
// connections.
func (s *Server) DropDatabase(ctx context.Context, url string) error {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return err
	}
	return s.Admin(ctx, func(conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{cfg.Database}.Sanitize()+" WITH (FORCE)")
		return err
	})
}

// Admin runs fn on a connection to the server's maintenance database.
func (s *Server) Admin(ctx context.Context, fn func(*pgx.Conn) error) error {
	conn, err := pgx.Connect(ctx, s.admin)
	if err != nil {
		return fmt.Errorf("pgserver: %w", err)
	}
	defer conn.Close(ctx)
	return fn(conn)
}
