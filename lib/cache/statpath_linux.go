package cache

import (
	"io/fs"
	"syscall"
	"time"
)

// StatPath is os.Stat (symlinks followed) as a Stamp and the file's
// type, with no allocation for the result: a warm run stats every
// transcript and keeps nothing else of it.
func StatPath(path string) (Stamp, fs.FileMode, error) { return StatUnder(path, "") }

// StatUnder is StatPath of dir/rel (of dir when rel is ""), without
// making the path: a warm search stats thousands, keeping none.
func StatUnder(dir, rel string) (Stamp, fs.FileMode, error) {
	var st syscall.Stat_t
	var err error
	for {
		if err = statUnder(dir, rel, &st); err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return Stamp{}, 0, &fs.PathError{Op: "stat", Path: joinUnder(dir, rel), Err: err}
	}
	mode := fs.ModeIrregular
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFREG:
		mode = 0
	case syscall.S_IFDIR:
		mode = fs.ModeDir
	}
	return settle(Stamp{Dev: uint64(st.Dev), Ino: st.Ino, Size: st.Size, MtimeNS: st.Mtim.Sec*1e9 + st.Mtim.Nsec,
		CtimeNS: st.Ctim.Sec*1e9 + st.Ctim.Nsec}, time.Now().UnixNano()), mode, nil //nolint:unconvert
}
