package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
)

// build is the identity of the running ccpipe, which every store's
// version carries: a rebuilt or upgraded ccpipe, whose reading of a
// transcript may differ, never takes facts an older one cached (a format
// version alone would rely on every such change bumping it).
//
// All the commands of one build share it, so that they share their stores
// (cc-sessions and cc-grep the session summaries, cc-statusline and
// cc-hook the usage ledgers) instead of finding each other's stale and
// rewriting them by turns. A build is known by what Go stamps into every
// binary: the module's version and the commit it was built from, when
// the tree was clean (`go install ./cmd/...` from a clone, or
// `go install module@version`). A build that cannot be told from
// another that way (from a modified tree, a test binary, -buildvcs=false)
// is known by its executable's size and mtime, and keeps files of its own
// (scope: the executable's name in each file name), so that two such
// binaries never share a file whose version only one of them accepts.
type build struct {
	scope string // "" for a build all commands share, else the executable's name
	id    string
}

// self is the running build; tests set it to stand in for another
// executable.
var self = sync.OnceValue(func() build {
	bi, ok := debug.ReadBuildInfo()
	exe, err := os.Executable()
	if err != nil {
		return identify(bi, ok, "", nil)
	}
	fi, err := os.Stat(exe)
	if err != nil {
		fi = nil
	}
	return identify(bi, ok, filepath.Base(exe), fi)
})

// identify tells a build from its stamped build info, or failing that
// from its executable (name exe, stat fi). An executable that cannot be
// found has the identity "", as before there were scopes.
func identify(bi *debug.BuildInfo, ok bool, exe string, fi os.FileInfo) build {
	if ok && bi != nil {
		if id, shared := stamped(bi); shared {
			return build{id: id}
		}
	}
	if fi == nil {
		return build{scope: exe}
	}
	return build{scope: exe, id: strconv.FormatInt(fi.Size(), 10) + "." + strconv.FormatInt(fi.ModTime().UnixNano(), 10)}
}

// stamped is the identity of a build whose source Go names: a module
// version (a tag or the pseudo-version of a commit, never "+dirty") and,
// when built from a checkout, an unmodified one. Everything it hashes is
// the same for every command of one `go install ./cmd/...` (the main
// package's path is not hashed).
func stamped(bi *debug.BuildInfo) (string, bool) {
	v := bi.Main.Version
	if v == "" || v == "(devel)" || strings.Contains(v, "+dirty") {
		return "", false
	}
	h := sha256.New()
	for _, s := range []string{bi.GoVersion, bi.Main.Path, v, bi.Main.Sum} {
		h.Write([]byte(s + "\x00"))
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.modified" && s.Value != "false" {
			return "", false
		}
		h.Write([]byte(s.Key + "=" + s.Value + "\x00"))
	}
	return "b" + hex.EncodeToString(h.Sum(nil)[:12]), true
}

// File names a cache file of this build's in dir: name, then the
// executable's name when the build keeps files of its own, then ext
// (".cache" for a store). A cache that is not a Store (a summary file)
// names its files here too, and puts Version in them.
func File(dir, name, ext string) string {
	if b := self(); b.scope != "" {
		name += "." + b.scope
	}
	return filepath.Join(dir, name+ext)
}

// Version is a cache's own version (its format, and anything else the
// facts depend on) with this build's identity: Open adds it to every
// store's.
func Version(version string) string { return version + "/" + self().id }
