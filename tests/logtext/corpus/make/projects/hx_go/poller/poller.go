package poller

import "time"

// WaitReady polls ready until it returns true or attempts run out.
func WaitReady(ready func() bool, attempts int, every time.Duration) bool {
	for i := 0; i < attempts; i++ {
		if ready() {
			return true
		}
		time.Sleep(every)
	}
	return false
}
