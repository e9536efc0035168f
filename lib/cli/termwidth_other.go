//go:build !unix

package cli

import "os"

// termWidth is unknown off Unix: the table is not cut.
func termWidth(*os.File) int { return 0 }
