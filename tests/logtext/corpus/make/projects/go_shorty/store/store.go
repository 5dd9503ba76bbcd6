// Package store keeps short links in memory.
package store

import (
	"errors"
	"strings"
	"sync"
)

var ErrNotFound = errors.New("not found")

type Store struct {
	mu    sync.Mutex
	links map[string]string
	hits  map[string]int
}

func New() *Store {
	return &Store{links: map[string]string{}, hits: map[string]int{}}
}

func (s *Store) Put(code, url string) error {
	if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
		return errors.New("invalid url: " + url)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.links[strings.ToLower(code)] = url
	return nil
}

func (s *Store) Get(code string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	url, ok := s.links[code]
	if !ok {
		return "", ErrNotFound
	}
	s.hits[code]++
	return url, nil
}

func (s *Store) Top(n int) []string {
	codes := make([]string, 0, len(s.hits))
	for code := range s.hits {
		codes = append(codes, code)
	}
	return codes[:n]
}
