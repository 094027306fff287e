// Package watch owns the watches: saved searches that tell what is new,
// across the platforms besluitbron_search reaches, within every
// platform's limit.
//
// A watch is a besluitbron_search's arguments (query, platforms,
// organization, date_from, date_to) with an owner and two names: an id,
// in the resource besluitbron://watch/<id> an MCP client reads and
// subscribes to, and a secret of 128 random bits, in the feed address
// /watch/<secret>.atom a feed reader takes as is. Only the owner (the
// creating caller as upstream/callinfo.ChargedTo names it) or whoever
// holds the secret may read, list or delete a watch; an id alone opens
// nothing.
//
// # What a poll costs
//
// Watches whose normalised arguments are equal are one search (a group)
// and share one poll. A poll is besluitbron_search run as the host's
// public session (callinfo.Public), through the invoke path like any
// search, one poll at a time. Each section of its answer says what it
// cost its platform's limit (crosssearch.Section.Units, counted by the
// fetch gate into the call's record); the [Manager] keeps, per platform,
// the units its polls spent over the last window of that platform's
// limit ([Options.Limit]) and starts a poll only when every platform it
// touches has room for the poll's expected cost within
// [Options.Share] of the limit. Groups wait their turn oldest-poll first
// (round robin), and a younger group never takes a platform's room an
// older one is waiting for, so when there are more searches than the
// share allows each is polled less often, all alike, and none starves.
// No group is polled more often than [Options.MinInterval]. Every read
// of a watch, and its feed, says when it was last checked, how often it
// is checked now, and whether that is slower than the interval because
// of the share.
//
// # What is new
//
// A group's first poll is its baseline: what it finds then is listed in
// the feed but is new to nobody. Every result a later poll finds that the
// group had not seen (by platform and id, and every copy the cross-search
// grouped with it under also_on) is new, stamped with the time it was
// first seen; the subscribers of every watch of the group are told
// (Options.Notify, notifications/resources/updated at the MCP edge).
// Reading besluitbron://watch/<id>?since=<RFC 3339 time> gives what was
// first seen after since (default: the watch's creation), newest first,
// each result as the cross-search shows it, with its copies on other
// platforms under also_on.
//
// # Kept across restarts
//
// Watches, their groups' seen results and poll times are kept in one
// JSON file (config watch.file, by default watches.json beside the cache
// folder), written whole to a temporary file and renamed over the old
// one, after every change. In a cluster the replicas keep one state in
// Redis instead ([Shared]: a change is written over the version it was
// made on, or made again), one replica at a time polls (the holder of a
// lease), and the others hear of new results on a Redis channel to tell
// their own subscribers.
package watch
