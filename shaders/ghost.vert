#version 150
// wec client, last-seen marker (vertex stage): hands ghost.frag the view-space position
// and normal (for the rim glow) and the vertex colour (the model's light/dark details).

uniform mat4 p3d_ModelViewProjectionMatrix;
uniform mat4 p3d_ModelViewMatrix;
uniform mat3 p3d_NormalMatrix;

in vec4 p3d_Vertex;
in vec3 p3d_Normal;
in vec4 p3d_Color;

out vec3 v_view_position;
out vec3 v_view_normal;
out vec4 v_color;

void main() {
    gl_Position = p3d_ModelViewProjectionMatrix * p3d_Vertex;
    v_view_position = vec3(p3d_ModelViewMatrix * p3d_Vertex);
    v_view_normal = p3d_NormalMatrix * p3d_Normal;
    v_color = p3d_Color;
}
