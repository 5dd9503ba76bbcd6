// Package godur formats durations for humans.
package godur

import (
	"fmt"
	"time"
)

// Human renders d as "1h", "1h30m", "45m" or "30s".
func Human(d time.Duration) string {
	switch {
	case d >= time.Hour:
		h := d / time.Hour
		m := (d % time.Hour) / time.Minute
		if m == 0 {
			return fmt.Sprintf("%dh", h)
		}
		return fmt.Sprintf("%dh%dm", h, m)
	case d > time.Minute:
		return fmt.Sprintf("%dm", d/time.Minute)
	default:
		return fmt.Sprintf("%ds", d/time.Second)
	}
}
