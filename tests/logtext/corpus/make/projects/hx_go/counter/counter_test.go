package counter

import (
	"sync"
	"testing"
)

func TestConcurrentAdds(t *testing.T) {
	h := New()
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				h.Add("/")
			}
		}()
	}
	wg.Wait()
	if h.Get("/") != 400 {
		t.Errorf("got %d hits, want 400", h.Get("/"))
	}
}
