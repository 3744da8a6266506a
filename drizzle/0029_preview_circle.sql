-- The preview circle (issue #30): members invited by username or email (invite tokens stored as
-- SHA-256 only), links for anyone holding one (label, expiry, revocation), private feedback, and
-- per item settings, failed token lookups and the release notices (each sent once); and a partial
-- index of the drafts, among which an uploaded image is looked up before it is served.
CREATE TYPE "public"."preview_member_state" AS ENUM('invited', 'joined', 'revoked');--> statement-breakpoint
CREATE TYPE "public"."preview_role" AS ENUM('viewer', 'commenter');--> statement-breakpoint
CREATE TABLE "preview_feedback" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"campaign_id" uuid,
	"project_id" uuid,
	"member_id" uuid,
	"author_id" uuid,
	"author_name" text NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "preview_feedback_one_item" CHECK (num_nonnulls("preview_feedback"."campaign_id", "preview_feedback"."project_id") = 1)
);
--> statement-breakpoint
CREATE TABLE "preview_links" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"campaign_id" uuid,
	"project_id" uuid,
	"label" text NOT NULL,
	"token_hash" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"revoked_at" timestamp (3) with time zone,
	"created_by" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"views" integer DEFAULT 0 NOT NULL,
	"last_view_at" timestamp (3) with time zone,
	CONSTRAINT "preview_links_one_item" CHECK (num_nonnulls("preview_links"."campaign_id", "preview_links"."project_id") = 1)
);
--> statement-breakpoint
CREATE TABLE "preview_members" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"campaign_id" uuid,
	"project_id" uuid,
	"user_id" uuid,
	"email" text,
	"guest_name" text,
	"role" "preview_role" NOT NULL,
	"state" "preview_member_state" DEFAULT 'invited' NOT NULL,
	"token_hash" text,
	"invited_by" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"joined_at" timestamp (3) with time zone,
	"revoked_at" timestamp (3) with time zone,
	"first_view_at" timestamp (3) with time zone,
	"last_view_at" timestamp (3) with time zone,
	"views" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "preview_members_one_item" CHECK (num_nonnulls("preview_members"."campaign_id", "preview_members"."project_id") = 1),
	CONSTRAINT "preview_members_someone" CHECK (num_nonnulls("preview_members"."user_id", "preview_members"."email") >= 1)
);
--> statement-breakpoint
CREATE TABLE "preview_settings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"campaign_id" uuid,
	"project_id" uuid,
	"circle_reads_feedback" boolean DEFAULT false NOT NULL,
	"followers_delay_minutes" integer DEFAULT 0 NOT NULL,
	"failed_lookups" integer DEFAULT 0 NOT NULL,
	"last_failed_at" timestamp (3) with time zone,
	"circle_notified_at" timestamp (3) with time zone,
	"followers_due_at" timestamp (3) with time zone,
	"followers_notified_at" timestamp (3) with time zone,
	CONSTRAINT "preview_settings_one_item" CHECK (num_nonnulls("preview_settings"."campaign_id", "preview_settings"."project_id") = 1),
	CONSTRAINT "preview_settings_delay_range" CHECK ("preview_settings"."followers_delay_minutes" between 0 and 43200)
);
--> statement-breakpoint
ALTER TABLE "preview_feedback" ADD CONSTRAINT "preview_feedback_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preview_feedback" ADD CONSTRAINT "preview_feedback_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preview_feedback" ADD CONSTRAINT "preview_feedback_member_id_preview_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."preview_members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preview_feedback" ADD CONSTRAINT "preview_feedback_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preview_links" ADD CONSTRAINT "preview_links_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preview_links" ADD CONSTRAINT "preview_links_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preview_links" ADD CONSTRAINT "preview_links_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preview_members" ADD CONSTRAINT "preview_members_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preview_members" ADD CONSTRAINT "preview_members_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preview_members" ADD CONSTRAINT "preview_members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preview_members" ADD CONSTRAINT "preview_members_invited_by_users_id_fk" FOREIGN KEY ("invited_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preview_settings" ADD CONSTRAINT "preview_settings_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preview_settings" ADD CONSTRAINT "preview_settings_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "preview_feedback_campaign_idx" ON "preview_feedback" USING btree ("campaign_id","created_at");--> statement-breakpoint
CREATE INDEX "preview_feedback_project_idx" ON "preview_feedback" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "preview_links_token_key" ON "preview_links" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "preview_links_campaign_idx" ON "preview_links" USING btree ("campaign_id");--> statement-breakpoint
CREATE INDEX "preview_links_project_idx" ON "preview_links" USING btree ("project_id");--> statement-breakpoint
CREATE UNIQUE INDEX "preview_members_token_key" ON "preview_members" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "preview_members_campaign_user_key" ON "preview_members" USING btree ("campaign_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "preview_members_project_user_key" ON "preview_members" USING btree ("project_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "preview_members_campaign_email_key" ON "preview_members" USING btree ("campaign_id",lower("email"));--> statement-breakpoint
CREATE UNIQUE INDEX "preview_members_project_email_key" ON "preview_members" USING btree ("project_id",lower("email"));--> statement-breakpoint
CREATE INDEX "preview_members_user_idx" ON "preview_members" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "preview_members_email_idx" ON "preview_members" USING btree (lower("email")) WHERE "preview_members"."user_id" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "preview_settings_campaign_key" ON "preview_settings" USING btree ("campaign_id");--> statement-breakpoint
CREATE UNIQUE INDEX "preview_settings_project_key" ON "preview_settings" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "preview_settings_followers_due_idx" ON "preview_settings" USING btree ("followers_due_at") WHERE "preview_settings"."followers_notified_at" IS NULL AND "preview_settings"."followers_due_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "campaigns_drafts_idx" ON "campaigns" USING btree ("owner_id") WHERE "campaigns"."released_at" IS NULL;--> statement-breakpoint
CREATE INDEX "projects_drafts_idx" ON "projects" USING btree ("owner_id") WHERE "projects"."released_at" IS NULL;