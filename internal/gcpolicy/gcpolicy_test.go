package gcpolicy

import (
	"runtime/debug"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
)

func TestCgroupLimit(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	cases := []struct {
		name  string
		files fstest.MapFS
		limit int64
		ok    bool
	}{
		{"no proc file", fstest.MapFS{}, 0, false},
		{"v2 limit", fstest.MapFS{
			"proc/self/cgroup":                   file("0::/bench\n"),
			"sys/fs/cgroup/bench/memory.max":     file("4294967296\n"),
			"sys/fs/cgroup/memory.max":           file("max\n"),
			"sys/fs/cgroup/unrelated/memory.max": file("1024\n"),
		}, 4 << 30, true},
		{"v2 no limit", fstest.MapFS{
			"proc/self/cgroup":               file("0::/bench\n"),
			"sys/fs/cgroup/bench/memory.max": file("max\n"),
		}, 0, false},
		{"v2 parent tighter than child", fstest.MapFS{
			"proc/self/cgroup":                 file("0::/a/b\n"),
			"sys/fs/cgroup/a/b/memory.max":     file("8589934592\n"),
			"sys/fs/cgroup/a/memory.max":       file("2147483648\n"),
			"sys/fs/cgroup/a/b/memory.current": file("1\n"),
		}, 2 << 30, true},
		{"v1 hybrid host", fstest.MapFS{
			"proc/self/cgroup": file("9:name=systemd:/\n4:memory:/process_api/x/parley-bench-1\n0::/\n"),
			"sys/fs/cgroup/memory/process_api/x/parley-bench-1/memory.limit_in_bytes": file("4294967296\n"),
			"sys/fs/cgroup/memory/process_api/x/memory.limit_in_bytes":                file("9223372036854771712\n"),
			"sys/fs/cgroup/memory/memory.limit_in_bytes":                              file("9223372036854771712\n"),
		}, 4 << 30, true},
		{"v1 unlimited", fstest.MapFS{
			"proc/self/cgroup":                           file("4:cpu,memory:/\n"),
			"sys/fs/cgroup/memory/memory.limit_in_bytes": file("9223372036854771712\n"),
		}, 0, false},
		{"garbage", fstest.MapFS{
			"proc/self/cgroup":         file("0::/\n"),
			"sys/fs/cgroup/memory.max": file("lots\n"),
		}, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			limit, ok := CgroupLimit(c.files)
			assert.Equal(t, c.ok, ok)
			if c.ok {
				assert.Equal(t, c.limit, limit)
			}
		})
	}
}

func TestApply(t *testing.T) {
	// Apply changes process-wide settings: put them back afterwards.
	oldPercent := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	})
	limited := fstest.MapFS{
		"proc/self/cgroup":           &fstest.MapFile{Data: []byte("0::/p\n")},
		"sys/fs/cgroup/p/memory.max": &fstest.MapFile{Data: []byte("1073741824")},
	}
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}

	c := Apply(env(nil), limited)
	assert.Equal(t, Choice{Percent: 200, MemoryLimit: 858993459,
		Reason: "GOGC=200, memory limit 819 MiB (4/5 of the cgroup's 1024 MiB)"}, c)
	assert.Equal(t, 200, debug.SetGCPercent(100))
	assert.Equal(t, int64(858993459), debug.SetMemoryLimit(-1))

	debug.SetMemoryLimit(12345)
	c = Apply(env(map[string]string{"GOGC": "50", "GOMEMLIMIT": "1GiB"}), limited)
	assert.Equal(t, Choice{Percent: -1, Reason: "GOGC from the environment, GOMEMLIMIT from the environment"}, c)
	assert.Equal(t, 100, debug.SetGCPercent(100), "the operator's GOGC is left alone")
	assert.Equal(t, int64(12345), debug.SetMemoryLimit(-1), "the operator's GOMEMLIMIT is left alone")

	c = Apply(env(nil), fstest.MapFS{})
	assert.Equal(t, Choice{Percent: 200, Reason: "GOGC=200, no memory limit (no cgroup limit)"}, c)
}
