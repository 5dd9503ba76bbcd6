package poller

import (
	"testing"
	"time"
)

func TestReadyAtOnce(t *testing.T) {
	if !WaitReady(func() bool { return true }, 3, time.Millisecond) {
		t.Fatal("want ready")
	}
}

func TestFeedBecomesReady(t *testing.T) {
	start := time.Now()
	ready := func() bool { return time.Since(start) > time.Hour }
	if !WaitReady(ready, 100, 100*time.Millisecond) {
		t.Fatal("feed never became ready")
	}
}
