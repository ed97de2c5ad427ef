package main

import (
	"bufio"
	"bytes"
	"os"
	"runtime/metrics"
	"strconv"
	"sync"
	"time"
)

// MemoryPeaks are the highest memory figures sampled, in bytes, of this
// process (Parley's server and the bench's own clients; the PostgreSQL
// peer is another process and not counted).
type MemoryPeaks struct {
	RSS       int64 `json:"rssBytes"`       // VmRSS
	RSSAnon   int64 `json:"rssAnonBytes"`   // anonymous: Go's heap and stacks, Bleve's in-memory segments
	RSSFile   int64 `json:"rssFileBytes"`   // file-backed: the mmapped bbolt file and index segments
	HeapInuse int64 `json:"heapInuseBytes"` // Go heap spans in use (MemStats.HeapInuse)
}

// memorySampler keeps the maxima of /proc/self/status and of the Go
// runtime, sampled every interval: the kernel's VmHWM alone is one figure
// that does not tell the heap from mmapped files.
type memorySampler struct {
	mu    sync.Mutex
	peaks MemoryPeaks
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
}

// heapInuseMetrics add up to MemStats.HeapInuse, read without stopping the
// world.
var heapInuseMetrics = []string{"/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes"}

func sampleMemory(interval time.Duration) *memorySampler {
	m := &memorySampler{stop: make(chan struct{}), done: make(chan struct{})}
	m.sample()
	go func() {
		defer close(m.done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-tick.C:
				m.sample()
			}
		}
	}()
	return m
}

func (m *memorySampler) sample() {
	status := procStatus()
	samples := make([]metrics.Sample, len(heapInuseMetrics))
	for i, name := range heapInuseMetrics {
		samples[i].Name = name
	}
	metrics.Read(samples)
	var heap int64
	for _, s := range samples {
		if s.Value.Kind() == metrics.KindUint64 {
			heap += int64(s.Value.Uint64())
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	p := &m.peaks
	p.RSS, p.RSSAnon, p.RSSFile = max(p.RSS, status["VmRSS"]), max(p.RSSAnon, status["RssAnon"]), max(p.RSSFile, status["RssFile"])
	p.HeapInuse = max(p.HeapInuse, heap)
}

// Peaks samples once more and returns the maxima so far.
func (m *memorySampler) Peaks() MemoryPeaks {
	m.sample()
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.peaks
}

// Stop ends the sampling and returns the maxima of the whole run.
func (m *memorySampler) Stop() MemoryPeaks {
	m.once.Do(func() { close(m.stop) })
	<-m.done
	return m.Peaks()
}

// procStatus reads the kB figures of /proc/self/status in bytes (Linux;
// empty elsewhere).
func procStatus() map[string]int64 {
	out := map[string]int64{}
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return out
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		name, rest, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		fields := bytes.Fields(rest)
		if !ok || len(fields) != 2 || string(fields[1]) != "kB" {
			continue
		}
		if kb, err := strconv.ParseInt(string(fields[0]), 10, 64); err == nil {
			out[string(name)] = kb * 1024
		}
	}
	return out
}

// peakRSS is the process's high-water resident set (VmHWM), which here
// holds the server and the bench's own clients.
func peakRSS() int64 { return procStatus()["VmHWM"] }
