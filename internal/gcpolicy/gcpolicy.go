// Package gcpolicy sets the Go garbage collector for Parley's workload.
//
// Indexing allocates heavily and briefly: Bleve builds and merges segments
// out of short-lived slices and maps. With Go's default GOGC of 100 the
// collector took about a fifth of the CPU of a bulk load (issue 18's
// profiles), so Parley runs with GOGC 200, which halves how often it
// collects at the price of more heap between collections. To keep that
// price bounded where memory is bounded, a process inside a cgroup with a
// memory limit also gets a soft memory limit (GOMEMLIMIT) of four fifths of
// it: the collector then works harder as the heap nears the limit instead
// of letting the kernel kill the process.
//
// An operator's own GOGC or GOMEMLIMIT environment variable always wins:
// the runtime has applied it already and Apply leaves it alone.
package gcpolicy

import (
	"fmt"
	"io/fs"
	"math"
	"path"
	"runtime/debug"
	"strconv"
	"strings"
)

// Percent is the GOGC Parley runs with unless GOGC is set.
const Percent = 200

// limitShare is the part of a cgroup's memory limit given to the Go heap
// as its soft limit: the rest is for what the runtime does not count
// (thread stacks outside the heap, mapped files such as bbolt's and the
// index segments' page cache charged to the cgroup).
const limitShare = 0.8

// Choice is what Apply set, for the start-up log.
type Choice struct {
	Percent     int    // the GOGC in force; -1 when the operator's GOGC was kept
	MemoryLimit int64  // the soft limit set, in bytes; 0 when none was set
	Reason      string // why, in words
}

// Apply sets GOGC and the soft memory limit, reading the environment
// through getenv and the cgroup files from root (the host's "/").
func Apply(getenv func(string) string, root fs.FS) Choice {
	c := Choice{Percent: -1}
	var reasons []string
	if getenv("GOGC") == "" {
		debug.SetGCPercent(Percent)
		c.Percent = Percent
		reasons = append(reasons, fmt.Sprintf("GOGC=%d", Percent))
	} else {
		reasons = append(reasons, "GOGC from the environment")
	}
	switch limit, ok := CgroupLimit(root); {
	case getenv("GOMEMLIMIT") != "":
		reasons = append(reasons, "GOMEMLIMIT from the environment")
	case ok:
		c.MemoryLimit = int64(float64(limit) * limitShare)
		debug.SetMemoryLimit(c.MemoryLimit)
		reasons = append(reasons, fmt.Sprintf("memory limit %d MiB (4/5 of the cgroup's %d MiB)", c.MemoryLimit>>20, limit>>20))
	default:
		reasons = append(reasons, "no memory limit (no cgroup limit)")
	}
	c.Reason = strings.Join(reasons, ", ")
	return c
}

// CgroupLimit is the tightest memory limit of the cgroups the process is
// in and their ancestors, cgroup v2 (memory.max) or v1
// (memory.limit_in_bytes), as mounted at the usual places under
// sys/fs/cgroup. ok is false when no limit applies.
func CgroupLimit(root fs.FS) (limit int64, ok bool) {
	self, err := fs.ReadFile(root, "proc/self/cgroup")
	if err != nil {
		return 0, false
	}
	limit = math.MaxInt64
	consider := func(dir, file string) {
		for p := path.Clean(dir); ; p = path.Dir(p) {
			if n, found := readLimit(root, path.Join(p, file)); found && n < limit {
				limit = n
			}
			if p == "sys/fs/cgroup" || p == "sys/fs/cgroup/unified" || p == "sys/fs/cgroup/memory" || p == "." || p == "/" {
				return
			}
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(string(self)), "\n") {
		// hierarchy-ID:controllers:path
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		controllers, p := parts[1], strings.TrimPrefix(parts[2], "/")
		switch {
		case parts[0] == "0" && controllers == "":
			consider(path.Join("sys/fs/cgroup", p), "memory.max")
			consider(path.Join("sys/fs/cgroup/unified", p), "memory.max")
		case hasController(controllers, "memory"):
			consider(path.Join("sys/fs/cgroup/memory", p), "memory.limit_in_bytes")
		}
	}
	return limit, limit != math.MaxInt64
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// unlimitedV1 is where cgroup v1 reports "no limit": the largest page
// multiple below 2^63, or more; anything above it means none.
const unlimitedV1 = int64(1) << 62

// readLimit reads one limit file: "max" (v2) or a huge number (v1) mean
// none.
func readLimit(root fs.FS, name string) (int64, bool) {
	b, err := fs.ReadFile(root, name)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n >= unlimitedV1 {
		return 0, false
	}
	return n, true
}
