/**
 * A generated MCP catalogue of 500 tools: 25 servers of the kinds teams connect (code hosting,
 * chat, billing, CRM, cloud...), each with 4 kinds of object and 5 operations on them, named
 * `<server>-<verb>_<object>` as the gateway exposes them, with descriptions and argument schemas
 * in the style of real servers. And 50 requests labelled by hand with the tool a person would pick.
 */
import type { SearchableTool } from "../src/mcp/search/tool-index";

interface ObjectKind {
  name: string;
  about: string;
  fields: string[];
}

interface Server {
  server: string;
  product: string;
  verbs: [string, string, string, string, string];
  objects: [ObjectKind, ObjectKind, ObjectKind, ObjectKind];
}

const kind = (name: string, about: string, ...fields: string[]): ObjectKind => ({ name, about, fields });

const SERVERS: Server[] = [
  { server: "github", product: "GitHub", verbs: ["create", "list", "get", "update", "close"], objects: [kind("issue", "a bug report or task in a repository", "repo", "title", "body", "labels"), kind("pull_request", "a proposed change from one branch into another for code review", "repo", "head", "base", "title"), kind("release", "a tagged version of a repository with release notes", "repo", "tag", "notes"), kind("workflow_run", "a CI run of a GitHub Actions workflow", "repo", "workflow", "branch")] },
  { server: "slack", product: "Slack", verbs: ["post", "list", "get", "update", "delete"], objects: [kind("message", "a chat message in a channel or thread", "channel", "text", "thread_ts"), kind("channel", "a conversation room members join", "name", "is_private"), kind("reminder", "a note Slack shows to a user at a given time", "text", "time", "user"), kind("user_status", "a member's status text and emoji", "user", "status_text", "emoji")] },
  { server: "stripe", product: "Stripe", verbs: ["create", "list", "get", "update", "cancel"], objects: [kind("invoice", "a bill sent to a customer for payment", "customer", "amount", "currency", "due_date"), kind("payment_intent", "a card charge being collected", "amount", "currency", "payment_method"), kind("subscription", "a recurring plan a customer pays for", "customer", "price", "trial_days"), kind("refund", "money returned to a customer for a charge", "charge", "amount", "reason")] },
  { server: "jira", product: "Jira", verbs: ["create", "search", "get", "update", "transition"], objects: [kind("ticket", "a work item in a project backlog", "project", "summary", "description", "priority"), kind("sprint", "a time-boxed iteration of a scrum board", "board", "name", "start_date", "end_date"), kind("epic", "a large body of work grouping tickets", "project", "name", "goal"), kind("comment", "a remark left on a work item", "ticket", "body")] },
  { server: "gcal", product: "Google Calendar", verbs: ["create", "list", "get", "update", "delete"], objects: [kind("event", "a meeting or appointment on a calendar", "calendar_id", "title", "start", "end", "attendees"), kind("calendar", "a shared or personal calendar", "name", "time_zone"), kind("availability", "the free and busy times of attendees", "attendees", "start", "end"), kind("reminder", "a notification before an event starts", "event_id", "minutes_before")] },
  { server: "gmail", product: "Gmail", verbs: ["send", "list", "get", "label", "trash"], objects: [kind("email", "a mail message to one or more recipients", "to", "subject", "body", "cc"), kind("draft", "an unsent mail message saved for later", "to", "subject", "body"), kind("thread", "a conversation of replies on one subject", "query", "max_results"), kind("filter", "a rule that sorts incoming mail", "from", "has_words", "label")] },
  { server: "gdrive", product: "Google Drive", verbs: ["upload", "list", "download", "share", "delete"], objects: [kind("file", "a document, sheet or binary stored in a drive", "name", "parent_folder", "mime_type"), kind("folder", "a directory that holds files", "name", "parent_folder"), kind("spreadsheet", "a sheet of rows and columns with formulas", "title", "sheet", "range"), kind("permission", "who may view or edit an item", "file_id", "email", "role")] },
  { server: "notion", product: "Notion", verbs: ["create", "query", "get", "update", "archive"], objects: [kind("page", "a document in a workspace with blocks of content", "parent", "title", "content"), kind("database", "a table of pages with typed properties", "parent", "title", "properties"), kind("block", "a paragraph, heading or list item inside a page", "page_id", "type", "text"), kind("wiki_entry", "a verified knowledge base article", "title", "owner", "content")] },
  { server: "linear", product: "Linear", verbs: ["create", "list", "get", "update", "archive"], objects: [kind("issue", "a task for an engineering team with a state and assignee", "team", "title", "assignee", "estimate"), kind("project", "a set of issues toward a product goal with a target date", "name", "lead", "target_date"), kind("cycle", "a team's iteration of planned issues", "team", "starts_at", "ends_at"), kind("roadmap", "the plan of projects across quarters", "name", "projects")] },
  { server: "salesforce", product: "Salesforce", verbs: ["create", "query", "get", "update", "delete"], objects: [kind("lead", "a prospective buyer not yet qualified", "name", "company", "email", "source"), kind("opportunity", "a potential deal with an amount and a stage", "account", "amount", "stage", "close_date"), kind("account", "a company that is a customer or partner", "name", "industry", "owner"), kind("contact", "a person at an account", "account", "name", "email", "phone")] },
  { server: "hubspot", product: "HubSpot", verbs: ["create", "list", "get", "update", "enroll"], objects: [kind("campaign", "a marketing campaign across emails and ads", "name", "budget", "start_date"), kind("newsletter", "a marketing email sent to a subscriber list", "subject", "list", "send_at"), kind("form", "a web form that captures visitors' details", "name", "fields"), kind("workflow", "an automated sequence of marketing steps", "name", "trigger", "actions")] },
  { server: "zendesk", product: "Zendesk", verbs: ["create", "search", "get", "update", "solve"], objects: [kind("support_ticket", "a customer's request for help", "requester", "subject", "description", "priority"), kind("macro", "a canned response agents apply to tickets", "title", "actions"), kind("satisfaction_rating", "a customer's rating of a support conversation", "ticket", "score", "comment"), kind("help_article", "a self-service article in the help center", "title", "body", "section")] },
  { server: "shopify", product: "Shopify", verbs: ["create", "list", "get", "update", "fulfill"], objects: [kind("order", "a purchase placed in the online store", "customer", "line_items", "shipping_address"), kind("product", "an item for sale with variants and a price", "title", "price", "vendor"), kind("inventory_level", "the stock count of a product at a location", "product", "location", "quantity"), kind("discount_code", "a coupon shoppers enter at checkout", "code", "percent_off", "expires_at")] },
  { server: "aws", product: "AWS", verbs: ["launch", "list", "describe", "resize", "terminate"], objects: [kind("ec2_instance", "a virtual machine in a region", "instance_type", "image_id", "region"), kind("s3_bucket", "object storage for files and backups", "bucket_name", "region"), kind("lambda_function", "serverless code that runs on events", "function_name", "runtime", "memory"), kind("rds_database", "a managed relational database instance", "engine", "instance_class", "storage_gb")] },
  { server: "k8s", product: "Kubernetes", verbs: ["apply", "list", "describe", "scale", "delete"], objects: [kind("deployment", "a set of replicated pods running a container image", "namespace", "name", "image", "replicas"), kind("pod", "a running container group on a node", "namespace", "name"), kind("service", "a stable network address in front of pods", "namespace", "name", "port"), kind("config_map", "configuration values mounted into pods", "namespace", "name", "data")] },
  { server: "datadog", product: "Datadog", verbs: ["create", "list", "get", "mute", "delete"], objects: [kind("monitor", "an alert on a metric crossing a threshold", "query", "threshold", "notify"), kind("dashboard", "a board of graphs of metrics", "title", "widgets"), kind("metric_series", "the time series of a metric such as CPU or latency", "metric", "from", "to"), kind("log_query", "a search over application logs", "query", "from", "to")] },
  { server: "pagerduty", product: "PagerDuty", verbs: ["trigger", "list", "get", "acknowledge", "resolve"], objects: [kind("incident", "an outage or urgent problem paging the on-call engineer", "service", "title", "urgency"), kind("oncall_shift", "who is on call for a schedule and when", "schedule", "since", "until"), kind("escalation_policy", "the order in which responders are paged", "name", "rules"), kind("maintenance_window", "a period when alerts of a service are silenced", "service", "start", "end")] },
  { server: "twilio", product: "Twilio", verbs: ["send", "list", "get", "update", "cancel"], objects: [kind("sms", "a text message to a phone number", "to", "from", "body"), kind("voice_call", "an outbound phone call that plays a message", "to", "from", "message"), kind("phone_number", "a number the account owns for messaging and calls", "area_code", "capabilities"), kind("verification", "a one-time code sent to confirm a phone", "to", "channel")] },
  { server: "sentry", product: "Sentry", verbs: ["list", "get", "assign", "resolve", "ignore"], objects: [kind("error_issue", "a grouped exception thrown by an application", "project", "query", "environment"), kind("stack_trace", "the frames of a crash in an error event", "event_id"), kind("release_health", "crash-free rates of a release", "project", "release"), kind("alert_rule", "a rule notifying about new errors", "project", "conditions")] },
  { server: "postgres", product: "PostgreSQL", verbs: ["run", "list", "describe", "create", "drop"], objects: [kind("sql_query", "a SQL statement against the database", "sql", "params"), kind("table", "a relation with columns and rows", "schema", "table"), kind("index", "a lookup structure that speeds up queries on columns", "table", "columns"), kind("backup", "a snapshot of the database for restore", "database", "label")] },
  { server: "figma", product: "Figma", verbs: ["get", "list", "export", "comment", "duplicate"], objects: [kind("design_file", "a design document with frames and layers", "file_key"), kind("frame", "a screen or artboard in a design", "file_key", "node_id"), kind("component", "a reusable UI element of a design system", "file_key", "name"), kind("prototype", "a clickable flow linking frames", "file_key", "start_frame")] },
  { server: "confluence", product: "Confluence", verbs: ["create", "search", "get", "update", "move"], objects: [kind("doc_page", "a team documentation page in a space", "space", "title", "body"), kind("space", "a collection of pages for a team or project", "key", "name"), kind("page_template", "a starting layout for new pages", "name", "body"), kind("attachment", "a file attached to a page", "page_id", "file_name")] },
  { server: "maps", product: "Maps", verbs: ["get", "search", "compute", "geocode", "list"], objects: [kind("directions", "a driving, walking or transit route between places", "origin", "destination", "mode"), kind("place", "a business or landmark near a location", "query", "near", "radius_m"), kind("distance_matrix", "travel times between many origins and destinations", "origins", "destinations"), kind("address", "a street address turned into coordinates", "address")] },
  { server: "weather", product: "Weather", verbs: ["get", "list", "subscribe", "compare", "forecast"], objects: [kind("current_conditions", "the temperature, wind and sky now at a place", "city", "units"), kind("daily_forecast", "the expected weather for the coming days", "city", "days"), kind("severe_alert", "a storm, flood or heat warning for an area", "region"), kind("air_quality", "the pollution index and pollen counts", "city")] },
  { server: "hr", product: "the HR system", verbs: ["create", "list", "get", "approve", "reject"], objects: [kind("time_off_request", "an employee's request for vacation or sick leave", "employee", "start", "end", "type"), kind("employee", "a person on the payroll with a manager and role", "name", "manager", "department"), kind("expense_report", "costs an employee paid and claims back", "employee", "amount", "receipt_url"), kind("job_posting", "an open position candidates apply to", "title", "department", "location")] },
];

const SENTENCES: Record<string, (object: ObjectKind, product: string) => string> = {
  create: (o, p) => `Creates ${o.about} in ${p}.`,
  post: (o, p) => `Posts ${o.about} in ${p}.`,
  send: (o, p) => `Sends ${o.about} through ${p}.`,
  list: (o, p) => `Lists each ${words(o.name)} in ${p} (${o.about}), newest first, with optional filters and paging.`,
  search: (o, p) => `Searches ${p} for each ${words(o.name)} (${o.about}) matching a text query.`,
  query: (o, p) => `Queries ${p} for each ${words(o.name)} (${o.about}) with filters and sorting.`,
  get: (o, p) => `Returns the full details of one ${words(o.name)} in ${p}, by its id.`,
  describe: (o, p) => `Describes one ${words(o.name)} in ${p}: its state, settings and recent events.`,
  update: (o, p) => `Updates fields of an existing ${words(o.name)} in ${p}.`,
  delete: (o, p) => `Deletes a ${words(o.name)} from ${p} permanently.`,
};

const words = (name: string) => name.replaceAll("_", " ");

function description(verb: string, object: ObjectKind, product: string): string {
  const sentence = SENTENCES[verb];
  if (sentence) return sentence(object, product);
  return `${verb[0]!.toUpperCase()}${verb.slice(1)}s a ${words(object.name)} in ${product} (${object.about}).`;
}

function inputSchema(verb: string, object: ObjectKind) {
  const id = `${object.name}_id`;
  const fields = ["create", "post", "send", "launch", "apply", "upload", "trigger", "run"].includes(verb)
    ? object.fields
    : ["list", "search", "query"].includes(verb)
      ? ["query", "limit", "cursor"]
      : verb === "update"
        ? [id, ...object.fields]
        : [id];
  const properties = Object.fromEntries(fields.map((field) => [field, { type: ["limit", "amount", "quantity", "replicas", "days", "memory", "storage_gb", "radius_m", "trial_days", "minutes_before", "percent_off", "estimate", "score", "max_results", "threshold", "budget", "port"].includes(field) ? "number" : "string", description: `The ${words(field)}.` }]));
  return { type: "object" as const, properties, required: fields.slice(0, 1) };
}

export const CATALOGUE: SearchableTool[] = SERVERS.flatMap(({ server, product, verbs, objects }) =>
  objects.flatMap((object) => verbs.map((verb) => ({ name: `${server}-${verb}_${object.name}`, description: description(verb, object, product), inputSchema: inputSchema(verb, object) }))),
);

/** Requests as a model would phrase a search, each with the tool a person would pick; about half avoid the tool's own words. */
export const LABELLED_QUERIES: Array<{ query: string; tool: string }> = [
  { query: "open a GitHub issue about the login page crashing", tool: "github-create_issue" },
  { query: "report a bug in the payments repository", tool: "github-create_issue" },
  { query: "merge request for the feature branch into main", tool: "github-create_pull_request" },
  { query: "why did the CI build fail on main", tool: "github-get_workflow_run" },
  { query: "publish version 2.3.0 with release notes", tool: "github-create_release" },
  { query: "post a message in the #deploys channel", tool: "slack-post_message" },
  { query: "tell the team in chat that the deploy is done", tool: "slack-post_message" },
  { query: "remind me in Slack tomorrow at 9 to review the budget", tool: "slack-post_reminder" },
  { query: "bill ACME 1200 euros for March consulting", tool: "stripe-create_invoice" },
  { query: "give the customer their money back for the duplicate charge", tool: "stripe-create_refund" },
  { query: "stop the customer's monthly plan", tool: "stripe-cancel_subscription" },
  { query: "file a Jira ticket for the checkout timeout", tool: "jira-create_ticket" },
  { query: "move the ticket to done", tool: "jira-transition_ticket" },
  { query: "start the next two-week sprint on the board", tool: "jira-create_sprint" },
  { query: "schedule a meeting with Ana and Bo on Thursday at 3pm", tool: "gcal-create_event" },
  { query: "when are Ana and Bo both free next week", tool: "gcal-get_availability" },
  { query: "cancel tomorrow's standup meeting", tool: "gcal-delete_event" },
  { query: "email the quarterly report to the finance team", tool: "gmail-send_email" },
  { query: "save a draft reply to the landlord", tool: "gmail-send_draft" },
  { query: "find the mail thread about the office move", tool: "gmail-list_thread" },
  { query: "upload the signed contract PDF to the legal folder", tool: "gdrive-upload_file" },
  { query: "give bob@example.com edit access to the roadmap doc", tool: "gdrive-share_permission" },
  { query: "write a new page in the team workspace about onboarding", tool: "notion-create_page" },
  { query: "add a Linear issue for the flaky test, assign it to Kim", tool: "linear-create_issue" },
  { query: "new sales prospect from the webinar: Jane Doe at Initech", tool: "salesforce-create_lead" },
  { query: "how big is the Globex deal and what stage is it in", tool: "salesforce-get_opportunity" },
  { query: "phone number of our contact at Umbrella Corp", tool: "salesforce-get_contact" },
  { query: "send the spring newsletter to subscribers on Friday", tool: "hubspot-create_newsletter" },
  { query: "a customer cannot log in, open a support case", tool: "zendesk-create_support_ticket" },
  { query: "mark the customer's help request as solved", tool: "zendesk-solve_support_ticket" },
  { query: "ship order 1042 to the customer", tool: "shopify-fulfill_order" },
  { query: "how many units of the blue mug are left in the warehouse", tool: "shopify-get_inventory_level" },
  { query: "make a 20% off coupon for Black Friday", tool: "shopify-create_discount_code" },
  { query: "spin up a new virtual machine in eu-west-1", tool: "aws-launch_ec2_instance" },
  { query: "make a storage bucket for the nightly backups", tool: "aws-launch_s3_bucket" },
  { query: "scale the api deployment to 5 replicas", tool: "k8s-scale_deployment" },
  { query: "which pods are running in the staging namespace", tool: "k8s-list_pod" },
  { query: "alert me when p99 latency goes over 500ms", tool: "datadog-create_monitor" },
  { query: "show the CPU usage graph data of the last hour", tool: "datadog-get_metric_series" },
  { query: "page the on-call engineer, the site is down", tool: "pagerduty-trigger_incident" },
  { query: "who is on call this weekend", tool: "pagerduty-list_oncall_shift" },
  { query: "text the driver that the package is ready", tool: "twilio-send_sms" },
  { query: "send a one-time code to confirm the user's phone", tool: "twilio-send_verification" },
  { query: "show the stack trace of the latest crash", tool: "sentry-get_stack_trace" },
  { query: "run a SQL select on the orders table", tool: "postgres-run_sql_query" },
  { query: "speed up lookups on the users email column", tool: "postgres-create_index" },
  { query: "export the login screen design as PNG", tool: "figma-export_frame" },
  { query: "how do I drive from Lyon to Geneva", tool: "maps-get_directions" },
  { query: "will it rain in Oslo this weekend", tool: "weather-get_daily_forecast" },
  { query: "book vacation for Sam from July 1 to July 14", tool: "hr-create_time_off_request" },
];
