package counter

// Hits counts page hits per path.
type Hits struct{ byPath map[string]int }

// New returns an empty counter.
func New() *Hits { return &Hits{byPath: map[string]int{}} }

// Add counts one hit.
func (h *Hits) Add(path string) { h.byPath[path]++ }

// Get returns the hits of path.
func (h *Hits) Get(path string) int { return h.byPath[path] }
