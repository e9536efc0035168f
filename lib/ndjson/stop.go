package ndjson

import "errors"

// StopError carries an error that ends a whole run (the output went away,
// a --jq failure, a signal), as opposed to a problem with one input (a
// transcript that cannot be read, a bad line), which is reported while
// the run goes on. A loop over inputs passes a stop up as it is; whoever
// started the run unwraps it (Stopped). Its message is the cause's.
type StopError struct{ Err error }

func (e *StopError) Error() string { return e.Err.Error() }
func (e *StopError) Unwrap() error { return e.Err }

// Stop marks err as ending the run; nil stays nil.
func Stop(err error) error {
	if err == nil {
		return nil
	}
	return &StopError{err}
}

// Stopped reports whether err is a stop, and returns its cause if so, else
// err itself.
func Stopped(err error) (error, bool) {
	var se *StopError
	if errors.As(err, &se) {
		return se.Err, true
	}
	return err, false
}
