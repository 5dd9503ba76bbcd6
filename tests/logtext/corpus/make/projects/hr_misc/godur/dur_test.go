package godur

import (
	"testing"
	"time"
)

func TestHuman(t *testing.T) {
	cases := []struct {
		name string
		in   time.Duration
		want string
	}{
		{"hours", 2 * time.Hour, "2h"},
		{"hours_and_minutes", 90 * time.Minute, "1h30m"},
		{"minutes", 45 * time.Minute, "45m"},
		{"one_minute", time.Minute, "1m"},
		{"seconds", 30 * time.Second, "30s"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Human(c.in); got != c.want {
				t.Errorf("Human(%v) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestHumanZero(t *testing.T) {
	t.Log("zero durations render as seconds; error: none expected")
	if got := Human(0); got != "0s" {
		t.Fatalf("Human(0) = %q", got)
	}
}
