import { builder } from './builder.js';
import { pageTotalCount } from './connection.js';
import { ProjectStatusEnum, type ProjectStatusValue } from './enums.js';

export const Project = builder.prismaNode('Project', {
  id: { field: 'projectId' },
  fields: (t) => ({
    projectId: t.exposeString('projectId'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    workdir: t.exposeString('workdir', { description: "Absolute path of the user's working directory." }),
    status: t.field({ type: ProjectStatusEnum, resolve: (p) => p.status as ProjectStatusValue }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const ProjectConnection = builder.connectionObject(
  {
    type: Project,
    name: 'ProjectConnection',
    fields: (t) => ({ totalCount: t.int({ resolve: pageTotalCount }) }),
  },
  { name: 'ProjectEdge' },
);
