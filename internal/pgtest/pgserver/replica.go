package pgserver

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// StartReplica starts a streaming replica of the server: pg_basebackup -R
// copies the server's data directory into a new temporary directory and
// writes the standby settings, then the copy starts, on a free loopback
// port, with settings on top, replaying the server's WAL as it comes. Stop
// it with Stop (before the server, whose WAL it follows).
func (s *Server) StartReplica(settings ...string) (*Server, error) {
	dir, err := os.MkdirTemp("", "parley-pg-replica-")
	if err != nil {
		return nil, fmt.Errorf("pgserver: %w", err)
	}
	r := &Server{dir: dir, bin: s.bin, cred: s.cred}
	if r.cred != nil {
		if err := os.Chown(dir, int(r.cred.Uid), int(r.cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("pgserver: %w", err)
		}
	}
	data := filepath.Join(dir, "data")
	if err := r.run("pg_basebackup", "-D", data, "-h", "127.0.0.1", "-p", strconv.Itoa(s.port), "-U", superuser,
		"-R", "-X", "stream", "--checkpoint=fast", "--no-sync"); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := r.start(data, settings); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return r, nil
}
