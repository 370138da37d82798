/* SPDX-License-Identifier: Apache-2.0 */
/*
 * librmw_implementation.so: loads the RMW library named by
 * RMW_IMPLEMENTATION and forwards each rmw_* call to it.
 *
 * Loading follows ros2/rmw_implementation (humble and jazzy,
 * rmw_implementation/src/functions.cpp: load_library() ->
 * rcpputils::SharedLibrary -> ros2/rcutils src/shared_library.c
 * `dlopen(library_path, RTLD_LAZY)`), i.e. LOCAL scope: the RMW library and
 * its DDS library (libddsc, libfastrtps) are not in the global scope, so
 * dlsym(RTLD_NEXT / RTLD_DEFAULT, "dds_write") from any other object finds
 * nothing. Symbols are looked up in the handle only.
 *
 * Upstream's default is rmw_fastrtps_cpp (DEFAULT_RMW_IMPLEMENTATION);
 * the stand-in defaults to rmw_cyclonedds_cpp, the DDS every other test
 * here uses.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/standin/rmw/rmw.h"

#define STANDIN_DEFAULT_RMW "rmw_cyclonedds_cpp"

static void *rmw_lib;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/*
 * Upstream passes the bare name and relies on the library search path
 * (LD_LIBRARY_PATH from the ROS setup script). The stand-in's RMW
 * libraries sit next to this one; the explicit path also keeps the search
 * independent of which object calls dlopen (ASan intercepts dlopen, and
 * glibc would then search libasan's RUNPATH instead of ours).
 */
static void load_library(void)
{
	const char *impl = getenv("RMW_IMPLEMENTATION");
	char name[128], path[PATH_MAX + 160];
	Dl_info self;

	if (!impl || !*impl)
		impl = STANDIN_DEFAULT_RMW;
	/* rcpputils::get_platform_library_name: "lib" + name + ".so". */
	snprintf(name, sizeof(name), "lib%s.so", impl);
	if (dladdr((void *)load_library, &self) && self.dli_fname) {
		const char *slash = strrchr(self.dli_fname, '/');
		int dirlen = slash ? (int)(slash - self.dli_fname + 1) : 0;

		snprintf(path, sizeof(path), "%.*s%s", dirlen, self.dli_fname,
			name);
		rmw_lib = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
		if (rmw_lib)
			return;
	}
	rmw_lib = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
	if (!rmw_lib)
		fprintf(stderr, "rmw_implementation: failed to load %s: %s\n",
			name, dlerror());
}

static void *get_symbol(const char *symbol)
{
	void *f;

	pthread_once(&load_once, load_library);
	if (!rmw_lib)
		return NULL;
	f = dlsym(rmw_lib, symbol);
	if (!f)
		fprintf(stderr, "rmw_implementation: no %s\n", symbol);
	return f;
}

/* One cached lookup per function, like upstream's symbol_<name>. */
#define FORWARD(ret, err, name, params, args)                               \
	ret name params                                                     \
	{                                                                   \
		static ret (*fn) params;                                    \
		if (!fn)                                                    \
			*(void **)&fn = get_symbol(#name);                  \
		if (!fn)                                                    \
			return err;                                         \
		return fn args;                                             \
	}

FORWARD(const char *, NULL, rmw_get_implementation_identifier, (void), ())
FORWARD(rmw_ret_t, RMW_RET_ERROR, rmw_init,
	(const rmw_init_options_t *options, rmw_context_t *context),
	(options, context))
FORWARD(rmw_ret_t, RMW_RET_ERROR, rmw_shutdown, (rmw_context_t *context),
	(context))
FORWARD(rmw_node_t *, NULL, rmw_create_node,
	(rmw_context_t *context, const char *name, const char *namespace_),
	(context, name, namespace_))
FORWARD(rmw_publisher_t *, NULL, rmw_create_publisher,
	(const rmw_node_t *node, const void *type_support,
	const char *topic_name, const rmw_qos_profile_t *qos_profile,
	const void *publisher_options),
	(node, type_support, topic_name, qos_profile, publisher_options))
FORWARD(rmw_subscription_t *, NULL, rmw_create_subscription,
	(const rmw_node_t *node, const void *type_support,
	const char *topic_name, const rmw_qos_profile_t *qos_policies,
	const void *subscription_options),
	(node, type_support, topic_name, qos_policies, subscription_options))
FORWARD(rmw_ret_t, RMW_RET_ERROR, rmw_publish,
	(const rmw_publisher_t *publisher, const void *ros_message,
	void *allocation), (publisher, ros_message, allocation))
FORWARD(rmw_ret_t, RMW_RET_ERROR, rmw_publish_serialized_message,
	(const rmw_publisher_t *publisher,
	const rmw_serialized_message_t *serialized_message, void *allocation),
	(publisher, serialized_message, allocation))
FORWARD(rmw_ret_t, RMW_RET_ERROR, rmw_serialize,
	(const void *ros_message, const void *type_support,
	rmw_serialized_message_t *serialized_message),
	(ros_message, type_support, serialized_message))
FORWARD(rmw_ret_t, RMW_RET_ERROR, rmw_take_with_info,
	(const rmw_subscription_t *subscription, void *ros_message,
	bool *taken, rmw_message_info_t *message_info, void *allocation),
	(subscription, ros_message, taken, message_info, allocation))
FORWARD(rmw_service_t *, NULL, rmw_create_service,
	(const rmw_node_t *node, const void *type_support,
	const char *service_name, const rmw_qos_profile_t *qos_profile),
	(node, type_support, service_name, qos_profile))
FORWARD(rmw_client_t *, NULL, rmw_create_client,
	(const rmw_node_t *node, const void *type_support,
	const char *service_name, const rmw_qos_profile_t *qos_profile),
	(node, type_support, service_name, qos_profile))
FORWARD(rmw_ret_t, RMW_RET_ERROR, rmw_send_request,
	(const rmw_client_t *client, const void *ros_request,
	int64_t *sequence_id), (client, ros_request, sequence_id))
FORWARD(rmw_ret_t, RMW_RET_ERROR, rmw_take_request,
	(const rmw_service_t *service, rmw_service_info_t *request_header,
	void *ros_request, bool *taken),
	(service, request_header, ros_request, taken))
FORWARD(rmw_ret_t, RMW_RET_ERROR, rmw_send_response,
	(const rmw_service_t *service, rmw_request_id_t *request_header,
	void *ros_response), (service, request_header, ros_response))
FORWARD(rmw_ret_t, RMW_RET_ERROR, rmw_take_response,
	(const rmw_client_t *client, rmw_service_info_t *request_header,
	void *ros_response, bool *taken),
	(client, request_header, ros_response, taken))
FORWARD(rmw_ret_t, RMW_RET_ERROR, rmw_service_set_on_new_request_callback,
	(rmw_service_t *service, rmw_event_callback_t callback,
	const void *user_data), (service, callback, user_data))
FORWARD(rmw_ret_t, RMW_RET_ERROR, rmw_client_set_on_new_response_callback,
	(rmw_client_t *client, rmw_event_callback_t callback,
	const void *user_data), (client, callback, user_data))
FORWARD(rmw_ret_t, RMW_RET_ERROR,
	rmw_subscription_set_on_new_message_callback,
	(rmw_subscription_t *subscription, rmw_event_callback_t callback,
	const void *user_data), (subscription, callback, user_data))
