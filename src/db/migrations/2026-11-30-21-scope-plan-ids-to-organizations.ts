import { sql, type Kysely } from 'kysely'

// Migrations take Kysely<any> so they stay frozen in time, whatever the app's types become.
export async function up(db: Kysely<any>): Promise<void> {
  // Data products, source applications and tracking scenarios were keyed by their id alone, and a
  // client chooses that id (snowplow-cli publishes the ids of its files): a second organization
  // publishing the same files was refused with 409. Each is now keyed by its organization and id,
  // and what refers to one names its organization too. A scenario's link to its data product is
  // unset by the product's deletion itself (data-products.store.ts): `on delete set null` of one
  // column of a key needs PostgreSQL 15, and setting both would unset the organization.
  await run(
    db,
    `
    alter table data_product_source_applications add column organization_id uuid;
    update data_product_source_applications link set organization_id = product.organization_id
      from data_products product where product.id = link.data_product_id;
    alter table data_product_source_applications alter column organization_id set not null;
    alter table tracking_scenario_history add column organization_id uuid;
    update tracking_scenario_history version set organization_id = scenario.organization_id
      from tracking_scenarios scenario where scenario.id = version.scenario_id;
    alter table tracking_scenario_history alter column organization_id set not null;

    alter table data_product_source_applications
      drop constraint data_product_source_applications_data_product_id_fkey,
      drop constraint data_product_source_applications_source_application_id_fkey,
      drop constraint data_product_source_applications_pk;
    alter table tracking_scenarios drop constraint tracking_scenarios_data_product_id_fkey;
    alter table tracking_scenario_history
      drop constraint tracking_scenario_history_scenario_id_fkey,
      drop constraint tracking_scenario_history_pk;

    alter table data_products drop constraint data_products_pkey,
      add constraint data_products_pkey primary key (organization_id, id);
    alter table source_applications drop constraint source_applications_pkey,
      add constraint source_applications_pkey primary key (organization_id, id);
    alter table tracking_scenarios drop constraint tracking_scenarios_pkey,
      add constraint tracking_scenarios_pkey primary key (organization_id, id);

    alter table data_product_source_applications
      add constraint data_product_source_applications_pk
        primary key (organization_id, data_product_id, source_application_id),
      add constraint data_product_source_applications_product_fkey
        foreign key (organization_id, data_product_id)
        references data_products (organization_id, id) on delete cascade,
      add constraint data_product_source_applications_application_fkey
        foreign key (organization_id, source_application_id)
        references source_applications (organization_id, id) on delete cascade;
    alter table tracking_scenarios
      add constraint tracking_scenarios_data_product_fkey
        foreign key (organization_id, data_product_id)
        references data_products (organization_id, id);
    alter table tracking_scenario_history
      add constraint tracking_scenario_history_pk primary key (organization_id, scenario_id, version),
      add constraint tracking_scenario_history_scenario_fkey
        foreign key (organization_id, scenario_id)
        references tracking_scenarios (organization_id, id) on delete cascade;
  `,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await run(
    db,
    `
    alter table tracking_scenario_history
      drop constraint tracking_scenario_history_scenario_fkey,
      drop constraint tracking_scenario_history_pk;
    alter table tracking_scenarios drop constraint tracking_scenarios_data_product_fkey;
    alter table data_product_source_applications
      drop constraint data_product_source_applications_application_fkey,
      drop constraint data_product_source_applications_product_fkey,
      drop constraint data_product_source_applications_pk;
    alter table tracking_scenarios drop constraint tracking_scenarios_pkey,
      add constraint tracking_scenarios_pkey primary key (id);
    alter table source_applications drop constraint source_applications_pkey,
      add constraint source_applications_pkey primary key (id);
    alter table data_products drop constraint data_products_pkey,
      add constraint data_products_pkey primary key (id);
    alter table tracking_scenario_history
      add constraint tracking_scenario_history_pk primary key (scenario_id, version),
      add constraint tracking_scenario_history_scenario_id_fkey
        foreign key (scenario_id) references tracking_scenarios (id) on delete cascade,
      drop column organization_id;
    alter table tracking_scenarios
      add constraint tracking_scenarios_data_product_id_fkey
        foreign key (data_product_id) references data_products (id) on delete set null;
    alter table data_product_source_applications
      add constraint data_product_source_applications_pk
        primary key (data_product_id, source_application_id),
      add constraint data_product_source_applications_data_product_id_fkey
        foreign key (data_product_id) references data_products (id) on delete cascade,
      add constraint data_product_source_applications_source_application_id_fkey
        foreign key (source_application_id) references source_applications (id) on delete cascade,
      drop column organization_id;
  `,
  )
}

/** Each statement of `script` in turn: a prepared statement (PGlite's) holds one. */
async function run(db: Kysely<any>, script: string): Promise<void> {
  for (const statement of script.split(';').map((text) => text.trim()))
    if (statement !== '') await sql.raw(statement).execute(db)
}
