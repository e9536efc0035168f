// Package peer speaks the cross-session messaging protocol of Claude Code
// 2.1.328: the Unix socket every running session listens on, the frames it
// reads (a user message, control frames), the optional auth line, and the
// receipts a receiver sends back as new connections to the sender's `from`
// socket.
//
// The inbox never answers on the connection, so a Sender reports what it
// could observe: the frames were written and the receiver closed its side
// after reading them. Drops, holds and idle notices arrive only on a reply
// Listener. The receiver drops a sender's messages beyond a burst of 30,
// one per 2 s after that, or identical to the previous one within 30 s;
// RateLimitedSender stays below those limits and joins what queues up, so
// nothing is dropped.
//
// The package knows sessions only through Target (socket path, session id,
// pid, key token, protocol), so it does not depend on how they are found.
// A key token is a secret: it goes on the wire and nowhere else.
package peer
