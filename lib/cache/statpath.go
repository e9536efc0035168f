package cache

// joinUnder is dir/rel, or dir when rel is "": filepath.Join's answer
// for a clean dir and a relative rel of clean elements.
func joinUnder(dir, rel string) string {
	if rel == "" {
		return dir
	}
	return dir + "/" + rel
}
