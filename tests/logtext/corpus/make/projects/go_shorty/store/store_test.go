package store

import "testing"

func TestPutGet(t *testing.T) {
	s := New()
	if err := s.Put("go", "https://go.dev"); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get("go")
	if err != nil || got != "https://go.dev" {
		t.Fatalf("Get(go) = %q, %v", got, err)
	}
}

func TestCodesAreCaseInsensitive(t *testing.T) {
	s := New()
	_ = s.Put("GoDev", "https://go.dev")
	got, err := s.Get("GoDev")
	if err != nil {
		t.Errorf("Get(GoDev) error = %v, want nil", err)
	}
	if got != "https://go.dev" {
		t.Errorf("Get(GoDev) = %q, want %q", got, "https://go.dev")
	}
}

func TestRejectsBadURL(t *testing.T) {
	s := New()
	if err := s.Put("x", "ftp://example.com"); err == nil {
		t.Error("Put accepted an ftp url")
	}
}

func TestTop(t *testing.T) {
	s := New()
	_ = s.Put("a", "https://a.example")
	_, _ = s.Get("a")
	if top := s.Top(3); len(top) != 1 {
		t.Errorf("Top(3) = %v", top)
	}
}
