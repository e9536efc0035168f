//go:build !linux

package cache

import (
	"io/fs"
	"os"
)

// StatPath is os.Stat (symlinks followed) as a Stamp and the file's type.
func StatPath(path string) (Stamp, fs.FileMode, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Stamp{}, 0, err
	}
	return StampOf(fi), fi.Mode().Type(), nil
}

// StatUnder is StatPath of dir/rel (of dir when rel is "").
func StatUnder(dir, rel string) (Stamp, fs.FileMode, error) { return StatPath(joinUnder(dir, rel)) }
