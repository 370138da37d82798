/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The babeltrace2 graph of `caretctl check`: the same graph the babeltrace2
 * CLI builds for `babeltrace2 DIR` (one src.ctf.fs per trace directory, all
 * muxed by flt.utils.muxer in time order), with our sink at the end.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "check_wire.h"

struct dirs {
	char **v;
	size_t n;
	char unreadable[512]; /* the first directory nftw could not read */
	int unreadable_errno;
};

static struct dirs *found; /* nftw has no user pointer */

static int on_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DNR && !found->unreadable[0]) {
		/* nftw says only that it could not read it: ask why */
		DIR *d = opendir(path);
		found->unreadable_errno = d ? EIO : errno;
		if (d)
			closedir(d);
		snprintf(found->unreadable, sizeof(found->unreadable), "%s", path);
		return 0;
	}
	/* A CTF trace directory is one that holds a "metadata" file. */
	if (type != FTW_F || strcmp(path + strlen(path) - strlen("/metadata"), "/metadata") != 0)
		return 0;
	char **v = realloc(found->v, (found->n + 1) * sizeof(*v));
	if (!v)
		return -1;
	found->v = v;
	v[found->n] = strndup(path, strlen(path) - strlen("/metadata"));
	if (!v[found->n])
		return -1;
	found->n++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int find_traces(const char *dir, struct dirs *d)
{
	struct stat st;
	if (stat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	found = d;
	/* FTW_PHYS: a trace directory is never reached through a symlink loop. */
	if (nftw(dir, on_entry, 32, FTW_PHYS) != 0)
		return -ENOMEM;
	/* a trace checked in part would look complete */
	if (d->unreadable[0])
		return -d->unreadable_errno;
	if (d->n == 0)
		return -ENODATA;
	qsort(d->v, d->n, sizeof(*d->v), cmp_str);
	return 0;
}

/* Appends " (label: m)" to err: m on one line, at most about 200
 * characters (babeltrace2's messages span lines and quote metadata). */
static void append_line(char *err, size_t errlen, const char *label, const char *m)
{
	size_t off = strlen(err);
	if (!m || off + strlen(label) + 8 >= errlen)
		return;
	off += (size_t)snprintf(err + off, errlen - off, " (%s: ", label);
	size_t room = errlen - off > 200 ? 200 : errlen - off - 1, k = 0;
	bool space = false;
	for (; *m && *m != '\n' && k + 5 < room; m++) {
		unsigned char c = (unsigned char)*m;
		if (c == '\t' || c == ' ' || c < 32 || c == 127) {
			space = k > 0;
			continue;
		}
		if (space)
			err[off + k++] = ' ';
		space = false;
		err[off + k++] = (char)c;
	}
	if (*m && *m != '\n') {
		memcpy(err + off + k, "...", 3);
		k += 3;
	}
	err[off + k++] = ')';
	err[off + k] = '\0';
}

/* what, then the deepest cause babeltrace2 gives: the one that says what
 * is wrong (the others say where it was found). */
static void take_error(char *err, size_t errlen, const char *what)
{
	const bt_error *e = bt_current_thread_take_error();
	snprintf(err, errlen, "%s", what);
	if (!e)
		return;
	/* causes are kept in the order they were appended: the first is the
	 * deepest */
	if (bt_error_get_cause_count(e) > 0)
		append_line(err, errlen, "babeltrace2",
			    bt_error_cause_get_message(bt_error_borrow_cause_by_index(e, 0)));
	bt_error_release(e);
}

/* A source that fails to start: src.ctf.fs parses the metadata, then
 * indexes every stream file, so a truncated stream file fails it too; the
 * cause naming a stream file says it was one (issue 33 C3). -EIO (a
 * trace that cannot be read) then, else -EBADMSG (not a CTF trace). */
static int take_source_error(char *err, size_t errlen, const char *dir)
{
	static const char index_failed[] = "Failed to index CTF stream file ";
	const bt_error *e = bt_current_thread_take_error();
	const char *stream = NULL;
	for (uint64_t i = 0; e && i < bt_error_get_cause_count(e) && !stream; i++) {
		const char *m = bt_error_cause_get_message(bt_error_borrow_cause_by_index(e, i));
		if (m && strncmp(m, index_failed, sizeof(index_failed) - 1) == 0)
			stream = m + sizeof(index_failed) - 1;
	}
	int rc = -EBADMSG;
	if (stream) {
		/* the path between babeltrace2's quotes */
		size_t n = strlen(stream);
		if (n >= 2 && (*stream == '\'' || *stream == '`'))
			stream++, n -= 2;
		snprintf(err, errlen, "stream file %.*s cannot be read: babeltrace2 cannot index "
			 "its packets (truncated or corrupt; the metadata was read)",
			 (int)(n > 600 ? 600 : n), stream);
		rc = -EIO;
	} else {
		snprintf(err, errlen, "not a CTF trace: babeltrace2 cannot read %.200s/metadata",
			 dir);
		if (e && bt_error_get_cause_count(e) > 0)
			append_line(err, errlen, "babeltrace2",
				    bt_error_cause_get_message(bt_error_borrow_cause_by_index(e, 0)));
	}
	if (e)
		bt_error_release(e);
	return rc;
}

void check_bt_log_reason(const char *log, char *err, size_t errlen)
{
	/* The metadata parser says what is wrong only in its log: the first
	 * error line of the ctf plugin's metadata code, after "file@func:line " */
	for (const char *l = log; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *tag = strstr(l, " E PLUGIN/CTF/META/");
		const char *eol = strchr(l, '\n');
		if (!tag || (eol && tag > eol))
			continue;
		const char *at = strchr(tag + 19, ' ');
		if (!at || (eol && at > eol))
			continue;
		at = strchr(at + 1, ' '); /* past "func@file.c:line" */
		if (!at || (eol && at > eol))
			continue;
		/* it says more than the error's cause */
		char *cause = strstr(err, " (babeltrace2: ");
		if (cause)
			*cause = '\0';
		append_line(err, errlen, "metadata", at + 1);
		return;
	}
}

static bt_graph_simple_sink_component_consume_func_status consume(bt_message_iterator *it,
								  void *ud)
{
	bt_message_array_const msgs;
	uint64_t n;
	switch (bt_message_iterator_next(it, &msgs, &n)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	int rc = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (rc == 0)
			rc = check_model_msg(ud, msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	return rc == 0 ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK
		       : BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
}

/* Source i (a ctf.fs reading dir), every output port of it connected to
 * the muxer: 0, or -errno with why in err. */
static int add_source(bt_graph *g, const bt_component_class_source *fs,
		      const bt_component_filter *mux, size_t i, const char *dir, char *err,
		      size_t errlen)
{
	bt_value *params = bt_value_map_create();
	bt_value *inputs = bt_value_array_create();
	const bt_component_source *src = NULL;
	char name[32];
	snprintf(name, sizeof(name), "src%zu", i);
	int ok = params && inputs && bt_value_array_append_string_element(inputs, dir) == 0 &&
		 bt_value_map_insert_entry(params, "inputs", inputs) == 0 &&
		 /* warnings too: why a stream file cannot be indexed
		  * (check_bt_stream_reason) is one */
		 bt_graph_add_source_component(g, fs, name, params, BT_LOGGING_LEVEL_WARNING,
					       &src) == BT_GRAPH_ADD_COMPONENT_STATUS_OK;
	bt_value_put_ref(inputs);
	bt_value_put_ref(params);
	if (!ok)
		return take_source_error(err, errlen, dir);
	for (uint64_t p = 0; p < bt_component_source_get_output_port_count(src); p++) {
		/* The muxer always offers one free input port, the last one. */
		uint64_t nin = bt_component_filter_get_input_port_count(mux);
		if (bt_graph_connect_ports(
			    g, bt_component_source_borrow_output_port_by_index_const(src, p),
			    bt_component_filter_borrow_input_port_by_index_const(mux, nin - 1),
			    NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
			take_error(err, errlen, "cannot connect the babeltrace2 graph");
			return -EIO;
		}
	}
	return 0;
}

static int build_and_run(bt_graph *g, const struct dirs *d, struct check_model *m, char *err,
			 size_t errlen)
{
	const bt_plugin *ctf = NULL, *utils = NULL;
	int rc = -EIO;
	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &ctf) !=
		    BT_PLUGIN_FIND_STATUS_OK ||
	    bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &utils) !=
		    BT_PLUGIN_FIND_STATUS_OK) {
		take_error(err, errlen, "babeltrace2's ctf or utils plugin not found");
		goto out;
	}
	const bt_component_class_source *fs =
		bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs");
	const bt_component_class_filter *muxc =
		bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer");
	const bt_component_filter *mux;
	const bt_component_sink *sink;
	if (!fs || !muxc ||
	    bt_graph_add_filter_component(g, muxc, "muxer", NULL, BT_LOGGING_LEVEL_NONE, &mux) !=
		    BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
	    bt_graph_add_simple_sink_component(g, "check", NULL, consume, NULL, m, &sink) !=
		    BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		take_error(err, errlen, "cannot build the babeltrace2 graph");
		goto out;
	}
	for (size_t i = 0; i < d->n; i++)
		if ((rc = add_source(g, fs, mux, i, d->v[i], err, errlen)) < 0)
			goto out;
	rc = -EIO;
	if (bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_index_const(mux, 0),
				   bt_component_sink_borrow_input_port_by_index_const(sink, 0),
				   NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
		take_error(err, errlen, "cannot connect the babeltrace2 graph");
		goto out;
	}
	for (;;) {
		bt_graph_run_status st = bt_graph_run(g);
		if (st == BT_GRAPH_RUN_STATUS_OK)
			break;
		if (st == BT_GRAPH_RUN_STATUS_AGAIN) {
			usleep(1000);
			continue;
		}
		if (st == BT_GRAPH_RUN_STATUS_MEMORY_ERROR) {
			rc = -ENOMEM;
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		take_error(err, errlen, "babeltrace2 cannot read the trace");
		goto out;
	}
	rc = 0;
out:
	bt_plugin_put_ref(ctf);
	bt_plugin_put_ref(utils);
	return rc;
}

int check_bt_run(const char *dir, struct check_model *m, char *err, size_t errlen)
{
	struct dirs d = { 0 };
	int rc = find_traces(dir, &d);
	if (rc == -ENODATA)
		snprintf(err, errlen, "not a CTF trace: no 'metadata' file under %s", dir);
	else if (rc == -ENOENT)
		snprintf(err, errlen, "%s: no such file or directory", dir);
	else if (rc == -ENOTDIR)
		snprintf(err, errlen, "%s: not a directory (give the trace's directory)", dir);
	else if (rc < 0 && d.unreadable[0])
		snprintf(err, errlen, "cannot read the directory %s: %s", d.unreadable,
			 strerror(-rc));
	else if (rc < 0)
		snprintf(err, errlen, "%s: %s", dir, strerror(-rc));
	/* before babeltrace2 loops forever on it (B18) */
	for (size_t i = 0; rc == 0 && i < d.n; i++) {
		char path[4200];
		snprintf(path, sizeof(path), "%s/metadata", d.v[i]);
		rc = check_meta_preflight(path, err, errlen);
	}
	if (rc == 0) {
		bt_graph *g = bt_graph_create(0);
		rc = g ? build_and_run(g, &d, m, err, errlen) : -ENOMEM;
		bt_graph_put_ref(g);
	}
	for (size_t i = 0; i < d.n; i++)
		free(d.v[i]);
	free(d.v);
	return rc;
}
