package transcript

import "syscall"

const mapPopulate = syscall.MAP_POPULATE
